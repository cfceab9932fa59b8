// Look-alike of com.google.firebase.messaging.FirebaseMessaging from firebase-messaging 25.0.2's
// api.txt (see FirebaseMessagingService.java for why 25.0.2). Simplified: topic, send and BigQuery
// members are absent.
package com.google.firebase.messaging;

import androidx.annotation.NonNull;
import com.google.android.gms.tasks.Task;

public class FirebaseMessaging {
    FirebaseMessaging() {}

    @NonNull
    public static FirebaseMessaging getInstance() { throw droptrack.lookalike.Absent.here(); }

    @NonNull
    public Task<Void> deleteToken() { throw droptrack.lookalike.Absent.here(); }

    @NonNull
    public Task<String> getToken() { throw droptrack.lookalike.Absent.here(); }

    public boolean isAutoInitEnabled() { throw droptrack.lookalike.Absent.here(); }

    public void setAutoInitEnabled(boolean enable) { throw droptrack.lookalike.Absent.here(); }
}
