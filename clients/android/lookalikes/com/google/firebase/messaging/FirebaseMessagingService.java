// Look-alike of com.google.firebase.messaging.FirebaseMessagingService from firebase-messaging
// 25.0.2's api.txt (firebase/firebase-android-sdk firebase-messaging/api.txt before #8087, which
// in 25.1.0 deprecated getToken/onNewToken for Installation-ID registration; DropTrack pins
// 25.0.2 because its server registers FCM tokens). api.txt says it extends Service (the real
// class's parent, EnhancedIntentService, is hidden). Callbacks run on a worker thread.
package com.google.firebase.messaging;

import androidx.annotation.NonNull;

public class FirebaseMessagingService extends android.app.Service {
    public FirebaseMessagingService() {}

    @Override
    public final android.os.IBinder onBind(android.content.Intent intent) { throw droptrack.lookalike.Absent.here(); }

    public void onDeletedMessages() {}

    public void onMessageReceived(@NonNull RemoteMessage message) {}

    public void onNewToken(@NonNull String token) {}

    public final int onStartCommand(android.content.Intent intent, int flags, int startId) { throw droptrack.lookalike.Absent.here(); }
}
