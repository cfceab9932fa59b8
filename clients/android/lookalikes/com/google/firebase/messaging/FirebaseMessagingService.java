// Look-alike of the Firebase Messaging class, compile-only (see RemoteMessage.java). The real one
// extends com.google.firebase.messaging.EnhancedIntentService, itself an android.app.Service.
package com.google.firebase.messaging;

import android.app.Service;

public class FirebaseMessagingService extends Service {
    public FirebaseMessagingService() {}

    public void onMessageReceived(RemoteMessage message) {}

    public void onNewToken(String token) {}

    public void onDeletedMessages() {}
}
