// Look-alike of the Firebase Messaging entry point, compile-only: only what DropTrack uses, with
// the real signatures. A real build uses com.google.firebase:firebase-messaging.
package com.google.firebase.messaging;

import com.google.android.gms.tasks.Task;

public class FirebaseMessaging {
    FirebaseMessaging() {}

    public static synchronized FirebaseMessaging getInstance() {
        throw new UnsupportedOperationException("look-alike");
    }

    public Task<String> getToken() {
        throw new UnsupportedOperationException("look-alike");
    }
}
