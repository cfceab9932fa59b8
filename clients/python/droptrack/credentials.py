"""Device credentials minted by the app's backend with its own P-256 key (docs/reference/device-api.md): a compact
ES256 JWS with `kid`, claims `sub`, `aud`, `exp`, `iat` and optionally `kfp`, and a low-s signature."""
from __future__ import annotations

import base64
import json
import re
import time
from typing import Callable

from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.utils import decode_dss_signature

from ._secrets import fingerprint
from .errors import CredentialError

# The order of P-256. DropTrack refuses an s above N/2 (`credential_high_s`): (r, s) and (r, N - s) both
# verify, so one credential would have two encodings; OpenSSL returns either.
N = 0xFFFFFFFF00000000FFFFFFFFFFFFFFFFBCE6FAADA7179E84F3B9CAC2FC632551
MAX_TTL_SECONDS = 7 * 24 * 3600
_ID = re.compile(r"^[A-Za-z0-9._:-]{1,128}$")


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def low_s(r: int, s: int) -> bytes:
    """The raw `r‖s` signature JWS wants (RFC 7518 §3.4), with s replaced by N - s when s > N/2."""
    if s > N // 2:
        s = N - s
    return r.to_bytes(32, "big") + s.to_bytes(32, "big")


class DeviceKey:
    """The backend's signing key for one app: `kid` as registered with `droptrack apps device-key add`,
    `app_id` the DropTrack app id (the `aud`). Give `api_key` to put its fingerprint in `kfp`, so
    `apps rotate-key` takes these credentials back too. The key is never shown: repr gives its
    public key's fingerprint."""

    def __init__(self, kid: str, private_key_pem: bytes | str, app_id: str, *, api_key: str | None = None,
                 clock: Callable[[], float] = time.time) -> None:
        pem = private_key_pem.encode() if isinstance(private_key_pem, str) else private_key_pem
        try:
            key = serialization.load_pem_private_key(pem, password=None)
        except (ValueError, TypeError):
            raise CredentialError("private_key_pem: not a PEM private key; give the PKCS#8 or SEC1 PEM of a "
                                  "P-256 key (openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256)") from None
        if not isinstance(key, ec.EllipticCurvePrivateKey) or not isinstance(key.curve, ec.SECP256R1):
            raise CredentialError("private_key_pem: ES256 needs a P-256 (prime256v1) key")
        if not kid:
            raise CredentialError("kid: give the key id registered with `droptrack apps device-key add --kid`")
        self.kid = kid
        self.app_id = app_id
        self._key = key
        self._kfp = fingerprint(api_key) if api_key is not None else None
        self._clock = clock
        public = key.public_key().public_bytes(serialization.Encoding.DER,
                                               serialization.PublicFormat.SubjectPublicKeyInfo)
        self.public_key_fingerprint = fingerprint(public)

    def __repr__(self) -> str:
        return f"droptrack.DeviceKey(kid={self.kid!r}, app={self.app_id!r}, public key {self.public_key_fingerprint})"

    def mint(self, user_id: str, ttl_seconds: int = 3600) -> str:
        """A credential for `user_id`, valid for `ttl_seconds` (at most 7 days), issued now."""
        if not _ID.match(user_id or ""):
            raise CredentialError("user_id: 1 to 128 characters from A-Z a-z 0-9 . _ : -")
        if not 0 < ttl_seconds <= MAX_TTL_SECONDS:
            raise CredentialError(f"ttl_seconds: from 1 to {MAX_TTL_SECONDS} (7 days); DropTrack refuses longer")
        now = int(self._clock())
        header = {"alg": "ES256", "typ": "JWT", "kid": self.kid}
        claims: dict[str, object] = {"sub": user_id, "aud": self.app_id, "iat": now, "exp": now + ttl_seconds}
        if self._kfp:
            claims["kfp"] = self._kfp
        signing_input = (b64url(json.dumps(header, separators=(",", ":")).encode()) + "." +
                         b64url(json.dumps(claims, separators=(",", ":")).encode()))
        r, s = decode_dss_signature(self._key.sign(signing_input.encode(), ec.ECDSA(hashes.SHA256())))
        return signing_input + "." + b64url(low_s(r, s))
