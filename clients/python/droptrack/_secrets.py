"""Secrets are shown only by fingerprint."""
import hashlib


def fingerprint(secret: str | bytes) -> str:
    """The first 16 hex digits of the secret's SHA-256: what `apps add` prints for an API key (`kfp`)."""
    data = secret.encode() if isinstance(secret, str) else secret
    return hashlib.sha256(data).hexdigest()[:16]
