"""DropTrack's backend SDK: the API key's calls, device credentials and webhook verification."""
from ._secrets import fingerprint
from .client import Client, DeviceCredential, Started, TagSet, TokenRegistered, Version
from .credentials import DeviceKey
from .errors import CredentialError, DropTrackError, TransportError, WebhookVerificationError
from .webhooks import WebhookVerifier

__all__ = ["Client", "CredentialError", "DeviceCredential", "DeviceKey", "DropTrackError", "Started", "TagSet",
           "TokenRegistered", "TransportError", "Version", "WebhookVerificationError", "WebhookVerifier",
           "fingerprint"]
__version__ = "0.1.0"
