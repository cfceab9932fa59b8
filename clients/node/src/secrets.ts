import { createHash } from 'node:crypto';

/** The first 16 hex digits of the SHA-256 of a secret: what `apps add` prints for an API key (`kfp`). */
export function fingerprint(secret: string | Uint8Array): string {
  return createHash('sha256').update(secret).digest('hex').slice(0, 16);
}
