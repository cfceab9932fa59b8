"""One HTTP call with the retry rules, on the standard library's urllib.

A call is retried only when repeating it cannot do its work twice:
- after an answer that says the server did not act on it: every 429 (the rate limits and the connection
  limit refuse before a request is served) and the connection guard's 503 `unavailable` (refused before the
  request was read); any call, after the server's `Retry-After`;
- after a refused connection (nothing was sent); any call;
- after a 503 from a request that was served (`store_unavailable`: a write may or may not have committed)
  or a connection that broke after sending: only an idempotent call (reads, PUTs, DELETEs, token
  registrations, and a start, which always carries its idempotency key).
"""
from __future__ import annotations

import email.utils
import json
import time
import urllib.error
import urllib.request
from typing import Any, Callable

from .errors import DropTrackError, TransportError


class _NoRedirects(urllib.request.HTTPRedirectHandler):
    """DropTrack never redirects; following one would send the API key wherever a proxy or a wrong URL points."""

    def redirect_request(self, req, fp, code, msg, headers, newurl):  # noqa: D102
        return None  # urllib then raises the 3xx as an HTTPError


_OPENER = urllib.request.build_opener(_NoRedirects)

# Codes the server gives before it serves a request: retrying such a refusal repeats nothing.
REFUSED_UNSERVED_503 = {"unavailable"}


def retry_after_seconds(value: str | None, now: float) -> float | None:
    """`Retry-After` as seconds: a whole number, or an HTTP date (RFC 9110 §10.2.3)."""
    if value is None:
        return None
    value = value.strip()
    if value.isdigit():
        return float(value)
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, when.timestamp() - now)


class Transport:
    """Sends JSON requests to `base_url` with a bearer and the retry rules above."""

    def __init__(self, base_url: str, bearer: str, *, max_attempts: int = 4, max_retry_wait: float = 30.0,
                 timeout: float = 30.0, sleep: Callable[[float], None] = time.sleep,
                 clock: Callable[[], float] = time.time) -> None:
        if max_attempts < 1:
            raise ValueError("max_attempts must be at least 1")
        self.base_url = base_url.rstrip("/")
        self._bearer = bearer
        self.max_attempts = max_attempts
        self.max_retry_wait = max_retry_wait
        self.timeout = timeout
        self._sleep = sleep
        self._clock = clock

    def request(self, method: str, path: str, body: Any = None, *, idempotent: bool) -> Any:
        """The answer's JSON (None for 204); raises DropTrackError with the server's code, field and message."""
        data = json.dumps(body, separators=(",", ":")).encode() if body is not None else None
        attempt = 0
        while True:
            attempt += 1
            request = urllib.request.Request(self.base_url + path, data=data, method=method)
            request.add_header("Authorization", f"Bearer {self._bearer}")
            request.add_header("Accept", "application/json")
            if data is not None:
                request.add_header("Content-Type", "application/json")
            try:
                with _OPENER.open(request, timeout=self.timeout) as response:
                    raw = response.read()
                    return json.loads(raw) if raw else None
            except urllib.error.HTTPError as answer:
                error = self._error(answer)
                unserved = answer.code == 429 or (answer.code == 503 and error.code in REFUSED_UNSERVED_503)
                retriable = unserved or (answer.code == 503 and idempotent)
                wait = error.retry_after if error.retry_after is not None else 1.0
                if not retriable or attempt >= self.max_attempts or wait > self.max_retry_wait:
                    raise error from None
                self._sleep(wait)
            except (urllib.error.URLError, OSError) as failure:
                reason = getattr(failure, "reason", failure)
                sent = not isinstance(reason, ConnectionRefusedError)
                if (sent and not idempotent) or attempt >= self.max_attempts:
                    raise TransportError(f"{method} {path}: {reason}", sent=sent) from None
                self._sleep(min(self.max_retry_wait, 0.25 * 2 ** attempt))

    def _error(self, answer: urllib.error.HTTPError) -> DropTrackError:
        raw = answer.read()
        if 300 <= answer.code < 400:
            return DropTrackError(answer.code, "redirect", f"answered {answer.code} to {answer.headers.get('Location')}: "
                                  "redirects are not followed, so the key goes nowhere else; give the final URL "
                                  "as base_url")
        try:
            error = json.loads(raw)["error"]
            code, message, field = error["code"], error.get("message", ""), error.get("field")
        except (ValueError, KeyError, TypeError):
            code, message, field = "http_error", raw[:200].decode("utf-8", "replace"), None
        return DropTrackError(answer.code, code, message, field, request_id=answer.headers.get("X-Request-Id"),
                              retry_after=retry_after_seconds(answer.headers.get("Retry-After"), self._clock()))
