"""Webhook deliveries checked as DropTrack signs them: `DropTrack-Signature: t=<unix seconds>,v1=<hex
HMAC-SHA256 of "<t>.<raw body>">` under the endpoint's secret (the whole `whsec_…` string)."""
from __future__ import annotations

import hashlib
import hmac
import json
import time
from typing import Any, Callable

from ._secrets import fingerprint
from .errors import WebhookVerificationError

SIGNATURE_HEADER = "DropTrack-Signature"


class WebhookVerifier:
    """Verifies deliveries for one endpoint. `tolerance_seconds` is the replay window: a `t` further from
    now than that, either way, is refused. repr shows the secret's fingerprint only."""

    def __init__(self, secret: str, *, tolerance_seconds: int = 300, clock: Callable[[], float] = time.time) -> None:
        if not secret:
            raise ValueError("secret: give the secret `droptrack apps webhook add` printed (whsec_…)")
        self._secret = secret.encode()
        self.tolerance_seconds = tolerance_seconds
        self._clock = clock
        self.secret_fingerprint = fingerprint(secret)

    def __repr__(self) -> str:
        return f"droptrack.WebhookVerifier(secret {self.secret_fingerprint}, tolerance {self.tolerance_seconds}s)"

    def verify(self, signature_header: str | None, body: bytes) -> dict[str, Any]:
        """The delivery's JSON (`id`, `type`, `app`, `activityId`, `occurredAt`, `data`) when `body`, the raw
        bytes as received, is signed with the secret at a time inside the window; else raises
        `WebhookVerificationError`. Drop duplicates by the delivery's `id` (the same on every retry)."""
        timestamp, signatures = None, []
        for item in (signature_header or "").split(","):
            name, _, value = item.strip().partition("=")
            if name == "t" and value.isdigit():
                timestamp = int(value)
            elif name == "v1" and value:
                signatures.append(value)
        if timestamp is None or not signatures:
            raise WebhookVerificationError("malformed_header", f"{SIGNATURE_HEADER} needs t=<unix seconds>,v1=<hex>")
        expected = hmac.new(self._secret, str(timestamp).encode() + b"." + body, hashlib.sha256).hexdigest()
        if not any(hmac.compare_digest(expected.encode(), given.encode()) for given in signatures):
            raise WebhookVerificationError("bad_signature", "the signature does not match the body under this "
                                           "secret: verify the raw body, before any JSON parsing")
        age = self._clock() - timestamp
        if age > self.tolerance_seconds:
            raise WebhookVerificationError("too_old", f"signed {int(age)} s ago, beyond the {self.tolerance_seconds} s "
                                           "window: a replay, or this machine's clock is wrong")
        if age < -self.tolerance_seconds:
            raise WebhookVerificationError("in_future", f"signed {int(-age)} s ahead: check this machine's clock")
        try:
            return json.loads(body)
        except ValueError:
            raise WebhookVerificationError("malformed_body", "signed, but not JSON") from None
