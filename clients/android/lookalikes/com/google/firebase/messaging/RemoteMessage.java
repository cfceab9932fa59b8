// Look-alike of the Firebase Messaging class, compile-only: only what DropTrack's glue uses,
// with the real signatures. A real build uses com.google.firebase:firebase-messaging.
package com.google.firebase.messaging;

import java.util.Map;

public final class RemoteMessage {
    private RemoteMessage() {}

    public Map<String, String> getData() {
        throw new UnsupportedOperationException("look-alike");
    }

    public int getPriority() {
        throw new UnsupportedOperationException("look-alike");
    }

    public int getOriginalPriority() {
        throw new UnsupportedOperationException("look-alike");
    }
}
