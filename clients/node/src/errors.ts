/**
 * The server refused a call: its `status`, `code`, `field` and `message` (the server's sentence, which
 * names the fix), with `requestId` and `retryAfter` (seconds, when it sent `Retry-After`). Never carries
 * the API key, a token or a credential.
 */
export class DropTrackError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    readonly serverMessage: string,
    readonly field: string | undefined = undefined,
    readonly requestId: string | undefined = undefined,
    readonly retryAfter: number | undefined = undefined,
  ) {
    super(`${status} ${code}${field ? ` (field ${field})` : ''}: ${serverMessage}`);
    this.name = 'DropTrackError';
  }
}

/**
 * No answer: connection refused, reset or timed out. `sent` is false when the request provably never
 * left (the connection was refused), true when it may have reached the server.
 */
export class TransportError extends DropTrackError {
  constructor(message: string, readonly sent: boolean) {
    super(0, 'transport', message);
    this.name = 'TransportError';
  }
}

/** A device credential could not be minted as asked; the message names the argument and the fix. */
export class CredentialError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'CredentialError';
  }
}

/** Why a webhook delivery was refused. */
export type WebhookFailure = 'malformed_header' | 'bad_signature' | 'too_old' | 'in_future' | 'malformed_body';

/** A webhook delivery is not DropTrack's, or is too old to trust (`reason`). */
export class WebhookVerificationError extends Error {
  constructor(readonly reason: WebhookFailure, message: string) {
    super(`${reason}: ${message}`);
    this.name = 'WebhookVerificationError';
  }
}
