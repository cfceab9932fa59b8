"""The API key's calls: tokens, activities, events, audiences, tags and device credentials."""
from __future__ import annotations

import uuid
from typing import Any, Callable, Literal, TypedDict
from urllib.parse import quote

from ._http import Transport
from ._secrets import fingerprint

Environment = Literal["sandbox", "production"]
JSON = dict[str, Any]


class TokenRegistered(TypedDict):
    fingerprint: str
    kind: str
    created: bool


class Started(TypedDict, total=False):
    activityId: str
    state: str
    version: int
    timestamp: int
    destinations: int
    destinationsByKind: dict[str, int]
    channelId: str | None  # a broadcast start's channel
    idempotencyKey: str  # added by this client: the key the start was sent with


class Version(TypedDict, total=False):
    activityId: str
    state: str
    version: int
    timestamp: int
    event: str
    priority: int
    destinations: int


class TagSet(TypedDict, total=False):
    userId: str
    deviceId: str
    tags: list[str]


class DeviceCredential(TypedDict):
    credential: str
    userId: str
    expiresAt: int


def _path(value: str) -> str:
    return quote(value, safe="")


def _without_none(body: JSON) -> JSON:
    return {key: value for key, value in body.items() if value is not None}


class Client:
    """A DropTrack app's backend, holding its API key. Every call raises `DropTrackError` with the server's
    `code`, `field` and `message` on a refusal; 429s and unserved 503s are retried after `Retry-After`,
    other failures only for calls that cannot act twice (see `droptrack._http`)."""

    def __init__(self, base_url: str, api_key: str, *, max_attempts: int = 4, max_retry_wait: float = 30.0,
                 timeout: float = 30.0, sleep: Callable[[float], None] | None = None) -> None:
        extra = {"sleep": sleep} if sleep is not None else {}
        self._http = Transport(base_url, api_key, max_attempts=max_attempts, max_retry_wait=max_retry_wait,
                               timeout=timeout, **extra)
        self.api_key_fingerprint = fingerprint(api_key)

    def __repr__(self) -> str:
        return f"droptrack.Client({self._http.base_url!r}, api key {self.api_key_fingerprint})"

    # -- tokens -------------------------------------------------------------------------------------

    def register_push_to_start(self, user_id: str, device_id: str, token: str, environment: Environment,
                               attributes_type: str, device: JSON | None = None) -> TokenRegistered:
        """`POST /v1/tokens/push-to-start`: an iPhone's push-to-start token (201 new, 200 known)."""
        return self._http.request("POST", "/v1/tokens/push-to-start", _without_none({
            "userId": user_id, "deviceId": device_id, "token": token, "environment": environment,
            "attributesType": attributes_type, "device": device}), idempotent=True)

    def register_activity_token(self, activity_id: str, device_id: str, token: str, environment: Environment,
                                device: JSON | None = None) -> TokenRegistered:
        """`POST /v1/tokens/activity`: an activity's update token from one iPhone."""
        return self._http.request("POST", "/v1/tokens/activity", _without_none({
            "activityId": activity_id, "deviceId": device_id, "token": token, "environment": environment,
            "device": device}), idempotent=True)

    def register_fcm(self, user_id: str, device_id: str, token: str, device: JSON | None = None) -> TokenRegistered:
        """`POST /v1/tokens/fcm`: an Android device's registration token."""
        return self._http.request("POST", "/v1/tokens/fcm", _without_none({
            "userId": user_id, "deviceId": device_id, "token": token, "device": device}), idempotent=True)

    def subscribe_channel(self, activity_id: str, device_id: str, device: JSON | None = None) -> TokenRegistered:
        """`POST /v1/tokens/channel-subscription`: an iOS 18 device subscribed to a broadcast activity's channel."""
        return self._http.request("POST", "/v1/tokens/channel-subscription", _without_none({
            "activityId": activity_id, "deviceId": device_id, "device": device}), idempotent=True)

    def unregister_token(self, token_fingerprint: str) -> None:
        """`DELETE /v1/tokens/{fingerprint}`."""
        self._http.request("DELETE", f"/v1/tokens/{_path(token_fingerprint)}", idempotent=True)

    # -- activities ---------------------------------------------------------------------------------

    def start_activity(self, activity_id: str, attributes_type: str, attributes: JSON, *,
                       user_id: str | None = None, audience: JSON | str | None = None,
                       content_state: JSON | None = None, event: JSON | None = None, alert: JSON | None = None,
                       idempotency_key: str | None = None, **extra: Any) -> Started:
        """`POST /v1/activities`: a start for `user_id`'s devices, or every member's of `audience`. The body's
        `idempotencyKey` (made here when not given; keep the returned one to retry later) makes a repeat
        answer the same and send nothing twice, so this call is retried like a read. `extra` takes the other
        fields by their wire names (`staleDate`, `relevanceScore`, `startAt`, `endAt`, `schedule`,
        `broadcast`, `widget`)."""
        key = idempotency_key or f"sdk-{uuid.uuid4()}"
        body = _without_none({
            "activityId": activity_id, "userId": user_id, "audience": audience, "attributesType": attributes_type,
            "attributes": attributes, "contentState": content_state, "event": event, "alert": alert,
            "idempotencyKey": key, **extra})
        started: Started = self._http.request("POST", "/v1/activities", body, idempotent=True)
        started["idempotencyKey"] = key
        return started

    def start_audience(self, activity_id: str, audience: JSON | str, attributes_type: str, attributes: JSON,
                       **fields: Any) -> Started:
        """An audience start: `{"userIds": [...]}`, `{"tags": {"all": [...], "any": [...]}}` or `"everyone"`."""
        return self.start_activity(activity_id, attributes_type, attributes, audience=audience, **fields)

    def get_activity(self, activity_id: str, timeline_limit: int | None = None) -> JSON:
        """`GET /v1/activities/{id}`: state, content-state, devices by fingerprint, timeline."""
        query = f"?timelineLimit={int(timeline_limit)}" if timeline_limit is not None else ""
        return self._http.request("GET", f"/v1/activities/{_path(activity_id)}{query}", idempotent=True)

    def diagnose(self, activity_id: str) -> JSON:
        """`GET /v1/activities/{id}/diagnosis`."""
        return self._http.request("GET", f"/v1/activities/{_path(activity_id)}/diagnosis", idempotent=True)

    def post_event(self, activity_id: str, type: str, data: JSON, terminal: str | bool | None = None) -> Version:
        """`POST /v1/activities/{id}/events`. Not idempotent: sent again only after a refusal the server made
        before serving it (429)."""
        return self._http.request("POST", f"/v1/activities/{_path(activity_id)}/events", _without_none({
            "type": type, "data": data, "terminal": terminal}), idempotent=False)

    def update_activity(self, activity_id: str, content_state: JSON, **fields: Any) -> Version:
        """`PATCH /v1/activities/{id}`: a direct update (`alert`, `staleDate`, `relevanceScore`, `priority`).
        Not idempotent."""
        return self._http.request("PATCH", f"/v1/activities/{_path(activity_id)}",
                                  {"contentState": content_state, **fields}, idempotent=False)

    def end_activity(self, activity_id: str, content_state: JSON | None = None,
                     dismissal: str | int | None = None) -> Version:
        """`POST /v1/activities/{id}/end` (`dismissal`: "default", "immediate" or Unix seconds). Not
        idempotent: a repeat after the end took effect is `409`."""
        return self._http.request("POST", f"/v1/activities/{_path(activity_id)}/end", _without_none({
            "contentState": content_state, "dismissal": dismissal}), idempotent=False)

    # -- audiences and tags -------------------------------------------------------------------------

    def refresh_audience(self, activity_id: str) -> JSON:
        """`POST /v1/activities/{id}/audience/refresh`: users who match now join (a repeat joins nobody)."""
        return self._http.request("POST", f"/v1/activities/{_path(activity_id)}/audience/refresh",
                                  idempotent=True)

    def set_user_tags(self, user_id: str, tags: list[str]) -> TagSet:
        """`PUT /v1/users/{userId}/tags`: replaces the set."""
        return self._http.request("PUT", f"/v1/users/{_path(user_id)}/tags", {"tags": tags}, idempotent=True)

    def get_user_tags(self, user_id: str) -> TagSet:
        return self._http.request("GET", f"/v1/users/{_path(user_id)}/tags", idempotent=True)

    def set_device_tags(self, device_id: str, tags: list[str]) -> TagSet:
        """`PUT /v1/devices/{deviceId}/tags`: replaces the set."""
        return self._http.request("PUT", f"/v1/devices/{_path(device_id)}/tags", {"tags": tags}, idempotent=True)

    def get_device_tags(self, device_id: str) -> TagSet:
        return self._http.request("GET", f"/v1/devices/{_path(device_id)}/tags", idempotent=True)

    # -- device credentials -------------------------------------------------------------------------

    def issue_device_credential(self, user_id: str, ttl_seconds: int | None = None) -> DeviceCredential:
        """`POST /v1/device-credentials`: one signed by the app's DropTrack-held key (`409
        no_device_signing_key` without one). To sign with your own key, use `DeviceKey.mint`."""
        return self._http.request("POST", "/v1/device-credentials", _without_none({
            "userId": user_id, "ttlSeconds": ttl_seconds}), idempotent=True)

    def revoke_credentials(self, user_id: str) -> JSON:
        """`POST /v1/users/{userId}/revoke-credentials`. Not idempotent (a repeat moves `notBefore` later)."""
        return self._http.request("POST", f"/v1/users/{_path(user_id)}/revoke-credentials", idempotent=False)
