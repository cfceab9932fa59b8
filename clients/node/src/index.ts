// DropTrack's backend SDK for Node 20: the API key's calls, device credentials and webhook verification.
export { Client } from './client';
export type {
  Audience,
  AudienceRefreshed,
  DeviceCredential,
  Environment,
  JSONObject,
  StartFields,
  Started,
  TagSet,
  TokenRegistered,
  Version,
} from './client';
export { DeviceKey, lowS, N, MAX_TTL_SECONDS } from './credentials';
export type { DeviceKeyOptions } from './credentials';
export { CredentialError, DropTrackError, TransportError, WebhookVerificationError } from './errors';
export type { WebhookFailure } from './errors';
export { retryAfterSeconds } from './http';
export type { RetryOptions } from './http';
export { fingerprint } from './secrets';
export { SIGNATURE_HEADER, WebhookVerifier } from './webhooks';
export type { WebhookEvent, WebhookVerifierOptions } from './webhooks';
