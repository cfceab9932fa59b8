// Device credentials minted by the app's backend with its own P-256 key (docs/reference/device-api.md): a compact
// ES256 JWS with `kid`, claims `sub`, `aud`, `iat`, `exp` and optionally `kfp`, and a low-s signature.
import { KeyObject, createPrivateKey, createPublicKey, sign } from 'node:crypto';
import { CredentialError } from './errors';
import { fingerprint } from './secrets';

/**
 * The order of P-256. DropTrack refuses an s above N/2 (`credential_high_s`): (r, s) and (r, N − s) both
 * verify, so one credential would have two encodings; OpenSSL returns either.
 */
export const N = 0xffffffff00000000ffffffffffffffffbce6faada7179e84f3b9cac2fc632551n;
export const MAX_TTL_SECONDS = 7 * 24 * 3600;
const ID = /^[A-Za-z0-9._:-]{1,128}$/;

const b64url = (data: string | Uint8Array) =>
  (typeof data === 'string' ? Buffer.from(data, 'utf8') : Buffer.from(data)).toString('base64url');

/** The raw `r‖s` signature (RFC 7518 §3.4) with s replaced by N − s when s > N/2. */
export function lowS(signature: Uint8Array): Buffer {
  if (signature.length !== 64) throw new CredentialError('an ES256 signature is 64 bytes (r‖s)');
  const raw = Buffer.from(signature);
  const s = BigInt('0x' + raw.subarray(32).toString('hex'));
  if (s <= N / 2n) return raw;
  const low = Buffer.from((N - s).toString(16).padStart(64, '0'), 'hex');
  return Buffer.concat([raw.subarray(0, 32), low]);
}

/** Options for a `DeviceKey`. */
export interface DeviceKeyOptions {
  /** The app's API key: its fingerprint goes in `kfp`, so `apps rotate-key` takes these credentials back. */
  apiKey?: string;
  /** Unix milliseconds now; `Date.now` by default. */
  now?: () => number;
}

/**
 * The backend's signing key for one app: `kid` as registered with `droptrack apps device-key add`, `appId`
 * the DropTrack app id (the `aud`). The key is never shown: `toString` gives its public key's fingerprint.
 */
export class DeviceKey {
  readonly #key: KeyObject;
  readonly #kfp: string | undefined;
  readonly #now: () => number;
  readonly publicKeyFingerprint: string;

  constructor(readonly kid: string, privateKeyPem: string, readonly appId: string, options: DeviceKeyOptions = {}) {
    let key: KeyObject;
    try {
      key = createPrivateKey(privateKeyPem);
    } catch {
      throw new CredentialError(
        'privateKeyPem: not a PEM private key; give the PKCS#8 or SEC1 PEM of a P-256 key ' +
          '(openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256)',
      );
    }
    if (key.asymmetricKeyType !== 'ec' || key.asymmetricKeyDetails?.namedCurve !== 'prime256v1') {
      throw new CredentialError('privateKeyPem: ES256 needs a P-256 (prime256v1) key');
    }
    if (!kid) throw new CredentialError('kid: give the key id registered with `droptrack apps device-key add --kid`');
    this.#key = key;
    this.#kfp = options.apiKey === undefined ? undefined : fingerprint(options.apiKey);
    this.#now = options.now ?? Date.now;
    this.publicKeyFingerprint = fingerprint(createPublicKey(key).export({ type: 'spki', format: 'der' }));
  }

  toString(): string {
    return `droptrack.DeviceKey(kid ${this.kid}, app ${this.appId}, public key ${this.publicKeyFingerprint})`;
  }

  /** A credential for `userId`, valid for `ttlSeconds` (at most 7 days), issued now. */
  mint(userId: string, ttlSeconds = 3600): string {
    if (!ID.test(userId)) throw new CredentialError('userId: 1 to 128 characters from A-Z a-z 0-9 . _ : -');
    if (!Number.isInteger(ttlSeconds) || ttlSeconds < 1 || ttlSeconds > MAX_TTL_SECONDS) {
      throw new CredentialError(`ttlSeconds: a whole number from 1 to ${MAX_TTL_SECONDS} (7 days); DropTrack refuses longer`);
    }
    const now = Math.floor(this.#now() / 1000);
    const claims: Record<string, string | number> = { sub: userId, aud: this.appId, iat: now, exp: now + ttlSeconds };
    if (this.#kfp !== undefined) claims.kfp = this.#kfp;
    const signingInput = `${b64url(JSON.stringify({ alg: 'ES256', typ: 'JWT', kid: this.kid }))}.${b64url(JSON.stringify(claims))}`;
    const signature = sign('sha256', Buffer.from(signingInput, 'utf8'), { key: this.#key, dsaEncoding: 'ieee-p1363' });
    return `${signingInput}.${b64url(lowS(signature))}`;
  }
}
