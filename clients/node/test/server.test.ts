// The SDK against a real `droptrack serve` with the emulators (checks/sdk_server.py starts it and writes its
// facts to the file named by DROPTRACK_SDK_FACTS): a start, an event, an audience start, a device credential
// minted here that the server takes, forged ones it refuses, and a webhook from the server verified.
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { Client, DeviceKey, DropTrackError, N, StartFields, WebhookVerificationError, WebhookVerifier, fingerprint } from 'droptrack';

interface Facts {
  baseUrl: string;
  appId: string;
  apiKey: string;
  kid: string;
  privateKeyFile: string;
  strangerKeyFile: string;
  webhookSecret: string;
  webhookPort: number;
}
const facts = JSON.parse(readFileSync(process.env.DROPTRACK_SDK_FACTS ?? '', 'utf8')) as Facts;
const PREFIX = `node${process.pid}-`; // ids of this run: the server may have served an earlier one
const START: Omit<StartFields, 'userId' | 'audience'> = {
  attributesType: 'DeliveryAttributes',
  attributes: { orderId: 'A-1' },
  event: { type: 'delivery.step', data: { step: 'placed', courierName: 'Sam' } },
  alert: { title: 'Order placed' },
};
const client = new Client(facts.baseUrl, facts.apiKey);
const key = new DeviceKey(facts.kid, readFileSync(facts.privateKeyFile, 'utf8'), facts.appId, { apiKey: facts.apiKey });
const stranger = new DeviceKey(facts.kid, readFileSync(facts.strangerKeyFile, 'utf8'), facts.appId);
const device = (credential: string) => new Client(facts.baseUrl, credential, { maxAttempts: 1 });
const hexToken = (seed: string) => createHash('sha256').update(PREFIX + seed).digest('hex');
const unb64 = (part: string) => Buffer.from(part, 'base64url');
const refused = (status: number, code: string) => (error: unknown) =>
  error instanceof DropTrackError && error.status === status && error.code === code;
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

// The app's webhook endpoint, on the port the server was configured with.
const deliveries: { headers: Record<string, string | string[] | undefined>; body: Buffer }[] = [];
const receiver = createServer((request, response) => {
  const chunks: Buffer[] = [];
  request.on('data', (chunk) => chunks.push(chunk));
  request.on('end', () => {
    deliveries.push({ headers: request.headers, body: Buffer.concat(chunks) });
    response.statusCode = 204;
    response.end();
  });
});
const listening = new Promise<void>((resolve) => receiver.listen(facts.webhookPort, '127.0.0.1', resolve));
after(() => {
  receiver.closeAllConnections();
  receiver.close();
});

test('a start, an event and an end', async () => {
  const [user, activity] = [PREFIX + 'u1', PREFIX + 'order-1'];
  await client.registerPushToStart({ userId: user, deviceId: PREFIX + 'iphone-1', token: hexToken('a1'), environment: 'sandbox', attributesType: 'DeliveryAttributes' });
  const started = await client.startActivity(activity, { ...START, userId: user });
  assert.deepEqual([started.activityId, started.destinations], [activity, 1]);
  const again = await client.startActivity(activity, { ...START, userId: user, idempotencyKey: started.idempotencyKey });
  assert.equal(again.version, started.version, 'the same key gives the same answer');
  const version = await client.postEvent(activity, { type: 'delivery.step', data: { step: 'picked_up' } });
  assert(version.version > started.version);
  const state = (await client.getActivity(activity)).contentState as { status?: string };
  assert.equal(state.status, 'Picked up');
  const updated = await client.updateActivity(activity, { contentState: { ...state, stopsRemaining: 1 }, alert: { title: 'Almost there' } });
  assert.deepEqual([updated.event, updated.version], ['update', version.version + 1]);
  assert.equal(((await client.getActivity(activity)).contentState as { stopsRemaining?: number }).stopsRemaining, 1);
  assert('findings' in (await client.diagnose(activity)));
  for (let waited = 0; ; waited += 100) {
    const timeline = (await client.getActivity(activity)).timeline as { event: string; reason: string }[];
    if (timeline.some((entry) => entry.event === 'start' && entry.reason === 'ok')) break;
    assert(waited < 30000, 'the start reached the APNs emulator');
    await sleep(100);
  }
  await assert.rejects(client.postEvent(activity, { type: 'delivery.nonsense', data: {} }), (error) => error instanceof DropTrackError && error.status === 422 && error.code.length > 0);
});

test('a broadcast start and a channel subscription', async () => {
  const [user, activity] = [PREFIX + 'u-cast', PREFIX + 'cast-1'];
  await client.registerPushToStart({ userId: user, deviceId: PREFIX + 'iphone-cast', token: hexToken('b2'), environment: 'sandbox', attributesType: 'DeliveryAttributes' });
  const started = await client.startActivity(activity, { ...START, userId: user, broadcast: {} });
  assert(started.channelId, 'a broadcast start names its channel');
  const subscribed = await client.subscribeChannel({ activityId: activity, deviceId: PREFIX + 'iphone-cast' });
  assert.deepEqual([subscribed.kind, subscribed.created], ['channel_subscription', true]);
  await client.unregisterToken(subscribed.fingerprint);
});

test("a refusal carries the server's code and field", async () => {
  await assert.rejects(
    client.startActivity('bad id!', { ...START, userId: 'u1' }),
    (error) => refused(400, 'invalid_field')(error) && (error as DropTrackError).field === 'activityId' && /A-Z/.test((error as DropTrackError).serverMessage),
  );
});

test('an audience start by tags', async () => {
  const [gold, beta, tin] = [PREFIX + 'gold', PREFIX + 'beta', PREFIX + 'tin'];
  for (const [user, id, tags] of [['gold-1', 'g1', [gold]], ['gold-2', 'g2', [gold, beta]], ['tin-1', 't1', [tin]]] as const) {
    await client.registerFcm({ userId: PREFIX + user, deviceId: PREFIX + id, token: `fcm-token-of-${PREFIX}${id}-0001` });
    assert.deepEqual((await client.setUserTags(PREFIX + user, [...tags])).tags, [...tags].sort());
  }
  assert.deepEqual((await client.getUserTags(PREFIX + 'gold-2')).tags, [gold, beta].sort());
  const started = await client.startAudience(PREFIX + 'sale-1', { tags: { all: [gold] } }, START);
  assert.equal(started.destinations, 2, "the two gold users' devices, not the tin one");
  await client.setUserTags(PREFIX + 'tin-1', [gold]);
  const refreshed = await client.refreshAudience(PREFIX + 'sale-1');
  assert.deepEqual([refreshed.joined, refreshed.members], [1, 3]);
});

test('a credential minted here registers a token', async () => {
  const credential = key.mint(PREFIX + 'u-cred', 600);
  const [header, claims] = credential.split('.').slice(0, 2).map((part) => JSON.parse(unb64(part).toString('utf8')));
  assert.deepEqual(header, { alg: 'ES256', typ: 'JWT', kid: facts.kid });
  assert.deepEqual([claims.sub, claims.aud, claims.kfp, claims.exp - claims.iat], [PREFIX + 'u-cred', facts.appId, fingerprint(facts.apiKey), 600]);
  const registered = await device(credential).registerPushToStart({
    userId: PREFIX + 'u-cred', deviceId: PREFIX + 'iphone-cred', token: hexToken('c3'), environment: 'sandbox', attributesType: 'DeliveryAttributes',
  });
  assert.equal(registered.created, true);
});

test('every credential has a low s and the server takes them', async () => {
  let credential = '';
  for (let n = 0; n < 24; n++) { // with OpenSSL's s, about half would be high: 2^-24 to pass by luck
    credential = key.mint(PREFIX + 'u-low');
    const s = BigInt('0x' + unb64(credential.split('.')[2]!).subarray(32).toString('hex'));
    assert(s <= N / 2n, `credential ${n} has a high s`);
  }
  assert.deepEqual((await device(credential).getUserTags(PREFIX + 'u-low')).tags, []);
});

test('forged credentials are refused', async () => {
  const forged = stranger.mint(PREFIX + 'u-forged');
  await assert.rejects(device(forged).getUserTags(PREFIX + 'u-forged'), (error) =>
    refused(401, 'credential_bad_signature')(error) && !String(error).includes(forged.split('.')[2]!));
  const genuine = key.mint(PREFIX + 'u-forged');
  const signingInput = genuine.slice(0, genuine.lastIndexOf('.'));
  const raw = unb64(genuine.slice(genuine.lastIndexOf('.') + 1));
  const twinS = (N - BigInt('0x' + raw.subarray(32).toString('hex'))).toString(16).padStart(64, '0');
  const high = `${signingInput}.${Buffer.concat([raw.subarray(0, 32), Buffer.from(twinS, 'hex')]).toString('base64url')}`;
  await assert.rejects(device(high).getUserTags(PREFIX + 'u-forged'), refused(401, 'credential_high_s'));
});

// A device credential's user may make 20 calls at once, then 5 a second (requestsPerSecondPerUser): 30 calls
// in a row meet the server's 429 and its Retry-After, and all succeed.
test("the server's 429 is waited out", async () => {
  const waits: number[] = [];
  const busy = new Client(facts.baseUrl, key.mint(PREFIX + 'u-busy'), { sleep: async (s) => { waits.push(s); await sleep(s * 1000); } });
  for (let n = 0; n < 30; n++) assert.deepEqual((await busy.getUserTags(PREFIX + 'u-busy')).tags, []);
  assert(waits.length > 0, 'the server refused some with 429');
  assert(waits.every((wait) => wait >= 1), `each wait is the server's Retry-After: ${waits.join(', ')}`);
});

test('a credential from the server', async () => {
  const issued = await client.issueDeviceCredential(PREFIX + 'u-issued', 300);
  assert.equal(issued.userId, PREFIX + 'u-issued');
  assert.deepEqual((await device(issued.credential).getUserTags(PREFIX + 'u-issued')).tags, []);
});

test('a webhook from the server is verified and a tampered one refused', async () => {
  await listening;
  const [user, activity] = [PREFIX + 'u-hook', PREFIX + 'order-hook'];
  await client.registerFcm({ userId: user, deviceId: PREFIX + 'pixel-hook', token: `fcm-token-of-${PREFIX}hook-0001` });
  await client.startActivity(activity, { ...START, userId: user });
  await client.endActivity(activity, { dismissal: 'immediate' });
  let delivery: (typeof deliveries)[number] | undefined;
  for (let waited = 0; !delivery; waited += 50) {
    delivery = deliveries.find((d) => { const e = JSON.parse(d.body.toString('utf8')); return e.type === 'activity_ended' && e.activityId === activity; });
    assert(delivery || waited < 30000, 'the activity_ended delivery arrives');
    if (!delivery) await sleep(50);
  }
  const header = String(delivery.headers['droptrack-signature']);
  const body = delivery.body;
  const verifier = new WebhookVerifier(facts.webhookSecret);
  const event = verifier.verify(header, body);
  assert.deepEqual([event.type, event.activityId, event.id], ['activity_ended', activity, delivery.headers['droptrack-delivery']]);
  const tampered = Buffer.from(body.toString('utf8').replace(activity, PREFIX + 'order-other'));
  const cases: [Buffer, string, string][] = [
    [tampered, header, 'bad_signature'],
    [Buffer.concat([body, Buffer.from(' ')]), header, 'bad_signature'],
    [body, header.replace('v1=', 'v1=0'), 'bad_signature'],
    [body, 'v1=' + header.split('v1=')[1], 'malformed_header'],
  ];
  for (const [badBody, badHeader, reason] of cases) {
    assert.throws(() => verifier.verify(badHeader, badBody), (error) => error instanceof WebhookVerificationError && error.reason === reason, reason);
  }
  assert.throws(() => new WebhookVerifier('whsec_another').verify(header, body), (error) => error instanceof WebhookVerificationError && error.reason === 'bad_signature');
  const later = new WebhookVerifier(facts.webhookSecret, { now: () => Date.now() + 301000 });
  assert.throws(() => later.verify(header, body), (error) => error instanceof WebhookVerificationError && error.reason === 'too_old', 'a replay after the window is refused');
  assert(!String(verifier).includes(facts.webhookSecret) && !JSON.stringify(verifier).includes(facts.webhookSecret));
});
