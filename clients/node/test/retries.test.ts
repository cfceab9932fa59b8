// The retry rules against a scripted server on 127.0.0.1: a 429 with Retry-After is waited out and
// retried; a non-idempotent call is never sent twice after an answer that may mean it was served; a start
// repeats with the same idempotency key.
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { Client, DropTrackError, TransportError, retryAfterSeconds } from 'droptrack';
import { Answer, Scripted, refusal } from './scripted';

const VERSION: Answer = { status: 200, body: { activityId: 'a1', state: 'active', version: 2 } };
const STEP = { type: 'delivery.step', data: { step: 'picked_up' } };

// A failed assertion skips a test's own close: an open server would keep the test process alive.
const servers: Scripted[] = [];
after(async () => {
  await Promise.all(servers.map((server) => server.close()));
});

async function scripted(answers: Answer[], options: { maxAttempts?: number; maxRetryWaitSeconds?: number } = {}) {
  const server = await new Scripted(answers).start();
  servers.push(server);
  const waits: number[] = [];
  const client = new Client(server.url, 'dt_app1_secretsecret', { ...options, sleep: async (s) => void waits.push(s) });
  return { server, waits, client };
}

const isRefusal = (status: number, code: string) => (error: unknown) =>
  error instanceof DropTrackError && error.status === status && error.code === code;

test('a 429 is retried after its Retry-After', async () => {
  const { server, waits, client } = await scripted([refusal(429, 'rate_limited', 3), VERSION]);
  const version = await client.postEvent('a1', STEP);
  await server.close();
  assert.equal(version.version, 2);
  assert.equal(server.requests.length, 2, 'one 429, then the same event once');
  assert.deepEqual(waits, [3], "the wait is the server's Retry-After");
});

test("the connection guard's 503 is retried for any call", async () => {
  const { server, waits, client } = await scripted([refusal(503, 'unavailable', 2), VERSION]);
  await client.endActivity('a1');
  await server.close();
  assert.deepEqual([server.requests.length, waits], [2, [2]]);
});

test('a served 503 is not repeated for an event', async () => {
  const { server, waits, client } = await scripted([refusal(503, 'store_unavailable', 1), VERSION]);
  await assert.rejects(
    client.postEvent('a1', STEP),
    (error) => isRefusal(503, 'store_unavailable')(error) && (error as DropTrackError).field === 'x' && (error as DropTrackError).retryAfter === 1,
  );
  await server.close();
  assert.equal(server.requests.length, 1, 'an event the server may have applied is not sent again');
  assert.deepEqual(waits, []);
});

test('a served 503 is not repeated for an update or an end', async () => {
  const { server, client } = await scripted([refusal(503, 'store_unavailable', 1), refusal(503, 'store_unavailable', 1), VERSION]);
  await assert.rejects(client.updateActivity('a1', { contentState: { step: 2 } }), isRefusal(503, 'store_unavailable'));
  await assert.rejects(client.endActivity('a1'), isRefusal(503, 'store_unavailable'));
  await server.close();
  assert.equal(server.requests.length, 2);
});

test('a start is repeated with its idempotency key', async () => {
  const started: Answer = { status: 201, body: { activityId: 'a1', state: 'pending', version: 1 } };
  const { server, waits, client } = await scripted([refusal(503, 'store_unavailable', 1), started]);
  const answer = await client.startActivity('a1', {
    userId: 'u1',
    attributesType: 'DeliveryAttributes',
    attributes: { orderId: 'A-1' },
    event: { type: 'delivery.step', data: { step: 'placed' } },
  });
  await server.close();
  const bodies = server.requests.map((request) => JSON.parse(request.body) as { idempotencyKey: string });
  assert.equal(bodies.length, 2);
  assert(bodies[0]!.idempotencyKey, 'the client made a key');
  assert.equal(bodies[1]!.idempotencyKey, bodies[0]!.idempotencyKey, 'the retry carries the same key');
  assert.equal(answer.idempotencyKey, bodies[0]!.idempotencyKey);
  assert.deepEqual(waits, [1]);
});

test('a broken connection is not repeated for an event', async () => {
  const { server, client } = await scripted([null, VERSION]);
  await assert.rejects(client.postEvent('a1', STEP), (error) => error instanceof TransportError && error.sent);
  await server.close();
  assert.equal(server.requests.length, 1);
});

test('a broken connection is retried for a read', async () => {
  const { server, waits, client } = await scripted([null, VERSION]);
  assert.equal((await client.getActivity('a1')).version, 2);
  await server.close();
  assert.deepEqual([server.requests.length, waits.length], [2, 1]);
});

test('a refused connection is retried for any call and says nothing was sent', async () => {
  const closed = await new Scripted([]).start(); // a port nothing listens on once closed
  await closed.close();
  const waits: number[] = [];
  const client = new Client(closed.url, 'dt_app1_secretsecret', { maxAttempts: 3, sleep: async (s) => void waits.push(s) });
  await assert.rejects(client.postEvent('a1', STEP), (error) => error instanceof TransportError && !error.sent);
  assert.equal(waits.length, 2, 'an event that never left is tried again');
});

test('a Retry-After beyond the limit is thrown, not waited', async () => {
  const { server, waits, client } = await scripted([refusal(429, 'rate_limited', 120)], { maxRetryWaitSeconds: 30 });
  await assert.rejects(client.getActivity('a1'), (error) => isRefusal(429, 'rate_limited')(error) && (error as DropTrackError).retryAfter === 120);
  await server.close();
  assert.deepEqual([waits, server.requests.length], [[], 1]);
});

test('attempts are bounded', async () => {
  const { server, waits, client } = await scripted([1, 2, 3].map(() => refusal(429, 'rate_limited', 1)), { maxAttempts: 3 });
  await assert.rejects(client.getActivity('a1'), isRefusal(429, 'rate_limited'));
  await server.close();
  assert.deepEqual([server.requests.length, waits], [3, [1, 1]]);
});

test('a redirect is not followed', async () => {
  const elsewhere = await new Scripted([VERSION]).start();
  servers.push(elsewhere);
  const { server, client } = await scripted([{ status: 302, headers: { Location: `${elsewhere.url}/v1/activities/a1/events` }, body: {} }]);
  await assert.rejects(client.postEvent('a1', STEP), isRefusal(302, 'redirect'));
  await Promise.all([server.close(), elsewhere.close()]);
  assert.deepEqual([server.requests.length, elsewhere.requests], [1, []], 'the key went nowhere else');
});

test('Retry-After as an HTTP date', () => {
  assert.equal(retryAfterSeconds('Thu, 01 Jan 2026 00:00:10 GMT', 1767225600000), 10);
  assert.equal(retryAfterSeconds('7'), 7);
});

test('the API key stays out of strings and errors', async () => {
  const { server, client } = await scripted([refusal(401, 'unauthorized')]);
  assert(!String(client).includes('secretsecret') && !JSON.stringify(client).includes('secretsecret'));
  await assert.rejects(client.getActivity('a1'), (error) => {
    const text = `${String(error)} ${JSON.stringify(error)} ${(error as Error).stack ?? ''}`;
    return isRefusal(401, 'unauthorized')(error) && !text.includes('secretsecret');
  });
  await server.close();
});
