// Look-alike of com.google.firebase.messaging.RemoteMessage from firebase-messaging 25.0.2's
// api.txt. Simplified: it extends Object, not the hidden AbstractSafeParcelable; the notification
// payload accessors are absent (DropTrack sends data messages only).
package com.google.firebase.messaging;

import androidx.annotation.NonNull;
import androidx.annotation.Nullable;

public final class RemoteMessage {
    private RemoteMessage() {}

    public static final int PRIORITY_HIGH = 1;
    public static final int PRIORITY_NORMAL = 2;
    public static final int PRIORITY_UNKNOWN = 0;

    @NonNull
    public java.util.Map<String, String> getData() { throw droptrack.lookalike.Absent.here(); }

    @Nullable
    public String getFrom() { throw droptrack.lookalike.Absent.here(); }

    @Nullable
    public String getMessageId() { throw droptrack.lookalike.Absent.here(); }

    public int getOriginalPriority() { throw droptrack.lookalike.Absent.here(); }

    public int getPriority() { throw droptrack.lookalike.Absent.here(); }

    public long getSentTime() { throw droptrack.lookalike.Absent.here(); }
}
