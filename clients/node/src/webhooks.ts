// Webhook deliveries checked as DropTrack signs them: `DropTrack-Signature: t=<unix seconds>,v1=<hex
// HMAC-SHA256 of "<t>.<raw body>">` under the endpoint's secret (the whole `whsec_…` string).
import { createHmac, timingSafeEqual } from 'node:crypto';
import { WebhookVerificationError } from './errors';
import { fingerprint } from './secrets';

export const SIGNATURE_HEADER = 'DropTrack-Signature';

/** A delivery's body. */
export interface WebhookEvent {
  id: string;
  type: 'dead_letter' | 'token_invalidated' | 'activity_ended' | 'start_in_doubt' | 'activity_dismissed';
  app: string;
  activityId: string;
  occurredAt: number;
  data: { [key: string]: unknown };
}

/** Options for a `WebhookVerifier`. */
export interface WebhookVerifierOptions {
  /** The replay window: a `t` further from now than this, either way, is refused (300 s). */
  toleranceSeconds?: number;
  /** Unix milliseconds now; `Date.now` by default. */
  now?: () => number;
}

/** Verifies deliveries for one endpoint. `toString` shows the secret's fingerprint only. */
export class WebhookVerifier {
  readonly #secret: Buffer;
  readonly #now: () => number;
  readonly toleranceSeconds: number;
  readonly secretFingerprint: string;

  constructor(secret: string, options: WebhookVerifierOptions = {}) {
    if (!secret) throw new RangeError('secret: give the secret `droptrack apps webhook add` printed (whsec_…)');
    this.#secret = Buffer.from(secret, 'utf8');
    this.#now = options.now ?? Date.now;
    this.toleranceSeconds = options.toleranceSeconds ?? 300;
    this.secretFingerprint = fingerprint(secret);
  }

  toString(): string {
    return `droptrack.WebhookVerifier(secret ${this.secretFingerprint}, tolerance ${this.toleranceSeconds}s)`;
  }

  /**
   * The delivery when `body`, the raw bytes as received, is signed with the secret at a time inside the
   * window; else throws `WebhookVerificationError`. Drop duplicates by the delivery's `id`.
   */
  verify(signatureHeader: string | undefined | null, body: Uint8Array): WebhookEvent {
    let timestamp: number | undefined;
    const signatures: string[] = [];
    for (const item of (signatureHeader ?? '').split(',')) {
      const at = item.indexOf('=');
      const name = item.slice(0, at).trim();
      const value = item.slice(at + 1).trim();
      if (at < 0) continue;
      if (name === 't' && /^\d+$/.test(value)) timestamp = Number(value);
      else if (name === 'v1' && value) signatures.push(value);
    }
    if (timestamp === undefined || signatures.length === 0) {
      throw new WebhookVerificationError('malformed_header', `${SIGNATURE_HEADER} needs t=<unix seconds>,v1=<hex>`);
    }
    const expected = Buffer.from(
      createHmac('sha256', this.#secret).update(Buffer.concat([Buffer.from(`${timestamp}.`), body])).digest('hex'),
    );
    // timingSafeEqual needs equal lengths; a length says nothing about the secret.
    const matches = signatures.some((given) => {
      const candidate = Buffer.from(given, 'utf8');
      return candidate.length === expected.length && timingSafeEqual(candidate, expected);
    });
    if (!matches) {
      throw new WebhookVerificationError(
        'bad_signature',
        'the signature does not match the body under this secret: verify the raw body, before any JSON parsing',
      );
    }
    const age = this.#now() / 1000 - timestamp;
    if (age > this.toleranceSeconds) {
      throw new WebhookVerificationError(
        'too_old',
        `signed ${Math.floor(age)} s ago, beyond the ${this.toleranceSeconds} s window: a replay, or this machine's clock is wrong`,
      );
    }
    if (age < -this.toleranceSeconds) {
      throw new WebhookVerificationError('in_future', `signed ${Math.floor(-age)} s ahead: check this machine's clock`);
    }
    try {
      return JSON.parse(Buffer.from(body).toString('utf8')) as WebhookEvent;
    } catch {
      throw new WebhookVerificationError('malformed_body', 'signed, but not JSON');
    }
  }
}
