// One HTTP call with the retry rules, on Node's global fetch.
//
// A call is retried only when repeating it cannot do its work twice:
// - after an answer that says the server did not act on it: every 429 (the rate limits and the connection
//   limit refuse before a request is served) and the connection guard's 503 `unavailable` (refused before
//   the request was read); any call, after the server's `Retry-After`;
// - after a refused connection (nothing was sent); any call;
// - after a 503 from a request that was served (`store_unavailable`: a write may or may not have
//   committed) or a connection that broke after sending: only an idempotent call (reads, PUTs, DELETEs,
//   token registrations, and a start, which always carries its idempotency key).
import { DropTrackError, TransportError } from './errors';

/** How calls are retried, and the waits they make (injectable for tests). */
export interface RetryOptions {
  /** Tries per call, the first included (4). */
  maxAttempts?: number;
  /** The longest `Retry-After` waited out, in seconds (30); a longer one is thrown, with `retryAfter`. */
  maxRetryWaitSeconds?: number;
  /** Per try, in seconds (30). */
  timeoutSeconds?: number;
  /** Waits `seconds`; `setTimeout` by default. */
  sleep?: (seconds: number) => Promise<void>;
}

/** Codes the server gives to a 503 before it serves a request: retrying such a refusal repeats nothing. */
const UNSERVED_503 = new Set(['unavailable']);

/** `Retry-After` as seconds: a whole number, or an HTTP date (RFC 9110 §10.2.3). */
export function retryAfterSeconds(value: string | null, nowMs: number = Date.now()): number | undefined {
  if (value === null) return undefined;
  const text = value.trim();
  if (/^\d+$/.test(text)) return Number(text);
  const when = Date.parse(text);
  return Number.isNaN(when) ? undefined : Math.max(0, (when - nowMs) / 1000);
}

const wait = (seconds: number) => new Promise<void>((resolve) => setTimeout(resolve, seconds * 1000));

export class Transport {
  readonly baseUrl: string;
  readonly #bearer: string;
  readonly #maxAttempts: number;
  readonly #maxRetryWait: number;
  readonly #timeout: number;
  readonly #sleep: (seconds: number) => Promise<void>;

  constructor(baseUrl: string, bearer: string, options: RetryOptions = {}) {
    this.baseUrl = baseUrl.replace(/\/+$/, '');
    this.#bearer = bearer;
    this.#maxAttempts = options.maxAttempts ?? 4;
    if (this.#maxAttempts < 1) throw new RangeError('maxAttempts must be at least 1');
    this.#maxRetryWait = options.maxRetryWaitSeconds ?? 30;
    this.#timeout = options.timeoutSeconds ?? 30;
    this.#sleep = options.sleep ?? wait;
  }

  /** The answer's JSON (undefined for 204); throws DropTrackError with the server's code, field and message. */
  async request<T>(method: string, path: string, body: unknown, idempotent: boolean): Promise<T> {
    const headers: Record<string, string> = { Authorization: `Bearer ${this.#bearer}`, Accept: 'application/json' };
    const data = body === undefined ? undefined : JSON.stringify(body);
    if (data !== undefined) headers['Content-Type'] = 'application/json';
    for (let attempt = 1; ; attempt++) {
      let response: FetchResponse;
      try {
        // DropTrack never redirects; following one would send the key wherever a proxy or a wrong URL points.
        const init = { method, headers, redirect: 'manual' as const, signal: AbortSignal.timeout(this.#timeout * 1000) };
        response = await fetch(this.baseUrl + path, data === undefined ? init : { ...init, body: data });
      } catch (failure) {
        const sent = !refused(failure);
        if ((sent && !idempotent) || attempt >= this.#maxAttempts) {
          throw new TransportError(`${method} ${path}: ${describe(failure)}`, sent);
        }
        await this.#sleep(Math.min(this.#maxRetryWait, 0.25 * 2 ** attempt));
        continue;
      }
      const text = await response.text();
      if (response.status >= 300 && response.status < 400) {
        throw new DropTrackError(
          response.status,
          'redirect',
          `answered ${response.status} to ${response.headers.get('Location')}: redirects are not followed, so the ` +
            'key goes nowhere else; give the final URL as the base URL',
        );
      }
      if (response.status < 300) return (text ? JSON.parse(text) : undefined) as T;
      const error = refusal(response, text);
      const unserved = response.status === 429 || (response.status === 503 && UNSERVED_503.has(error.code));
      const retriable = unserved || (response.status === 503 && idempotent);
      const seconds = error.retryAfter ?? 1;
      if (!retriable || attempt >= this.#maxAttempts || seconds > this.#maxRetryWait) throw error;
      await this.#sleep(seconds);
    }
  }
}

function refusal(response: FetchResponse, text: string): DropTrackError {
  let code = 'http_error';
  let message = text.slice(0, 200);
  let field: string | undefined;
  try {
    const error = (JSON.parse(text) as { error?: { code?: unknown; message?: unknown; field?: unknown } }).error;
    if (error && typeof error.code === 'string') {
      code = error.code;
      message = typeof error.message === 'string' ? error.message : '';
      field = typeof error.field === 'string' ? error.field : undefined;
    }
  } catch {
    // Not JSON (a proxy's page): the status and the start of the text say what there is.
  }
  return new DropTrackError(
    response.status,
    code,
    message,
    field,
    response.headers.get('X-Request-Id') ?? undefined,
    retryAfterSeconds(response.headers.get('Retry-After')),
  );
}

/** fetch reports a refused connection as a TypeError whose cause has code ECONNREFUSED. */
function refused(failure: unknown): boolean {
  const cause = (failure as { cause?: { code?: unknown } } | undefined)?.cause;
  return cause?.code === 'ECONNREFUSED';
}

function describe(failure: unknown): string {
  const cause = (failure as { cause?: { code?: unknown; message?: unknown } } | undefined)?.cause;
  if (cause && typeof cause.code === 'string') return `${cause.code}${typeof cause.message === 'string' ? ` ${cause.message}` : ''}`;
  return failure instanceof Error ? failure.message : String(failure);
}
