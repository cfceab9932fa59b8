"""Errors that mirror the server's answer: `{"error": {"code", "message", "field"}}`."""
from __future__ import annotations


class DropTrackError(Exception):
    """The server refused a call. `code` and `field` are the server's; `message` is its sentence, which says
    what was wrong and how to fix it. `retry_after` is the server's `Retry-After` in seconds when it sent one
    (a 429 or 503 this client did not, or could not safely, retry). Never carries the API key or a token."""

    def __init__(self, status: int, code: str, message: str, field: str | None = None,
                 request_id: str | None = None, retry_after: float | None = None) -> None:
        self.status = status
        self.code = code
        self.message = message
        self.field = field
        self.request_id = request_id
        self.retry_after = retry_after
        where = f" (field {field})" if field else ""
        super().__init__(f"{status} {code}{where}: {message}")


class TransportError(DropTrackError):
    """No answer from the server: connection refused, reset or timed out. `sent` is False when the request
    provably never left (the connection was refused), True when it may have reached the server."""

    def __init__(self, message: str, sent: bool) -> None:
        self.sent = sent
        super().__init__(0, "transport", message)


class CredentialError(ValueError):
    """A device credential could not be minted as asked (a bad ttl, key or user id); names the argument."""


class WebhookVerificationError(Exception):
    """A webhook delivery is not DropTrack's, or is too old to trust. `reason` is one of `malformed_header`,
    `bad_signature`, `too_old`, `in_future`, `malformed_body`."""

    def __init__(self, reason: str, message: str) -> None:
        self.reason = reason
        super().__init__(f"{reason}: {message}")
