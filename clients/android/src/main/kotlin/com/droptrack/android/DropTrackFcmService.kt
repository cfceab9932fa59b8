package com.droptrack.android

import com.droptrack.android.core.MessageForwarding
import com.google.firebase.messaging.FirebaseMessagingService
import com.google.firebase.messaging.RemoteMessage

/**
 * DropTrack's FirebaseMessagingService, declared by the library's manifest (exported=false, the
 * `com.google.firebase.MESSAGING_EVENT` intent filter). It needs nothing from the app's code: FCM may
 * start it in a fresh process while the app is killed, and [DropTrack] reads what the app's last
 * `start` saved. Android gives FCM to one service per app: when this is it, messages and tokens
 * that are not DropTrack's go on to [DropTrack.fcmForwardTarget] (expo-notifications' handler, when
 * that library is in the app). An app with its own service removes this one and calls
 * [DropTrack.handleMessage] and [DropTrack.onNewToken] instead (README.md). Both callbacks run on
 * Firebase's background thread, so the blocking calls to the server are acceptable here.
 */
class DropTrackFcmService : FirebaseMessagingService() {
    override fun onNewToken(token: String) {
        DropTrack.onNewToken(this, token)
        forward("onNewToken", token)
    }

    override fun onMessageReceived(message: RemoteMessage) {
        val data: Map<String, String> = message.data
        if (DropTrack.isDropTrackMessage(data)) {
            DropTrack.handleMessage(this, data)
        } else {
            forward("onMessageReceived", message)
        }
    }

    override fun onDeletedMessages() {
        forward("onDeletedMessages")
    }

    private fun forward(method: String, vararg arguments: Any) {
        val className = DropTrack.fcmForwardTarget ?: return
        val forwarding = MessageForwarding(className) { line -> android.util.Log.i("DropTrack", line) }
        val target = forwarding.target(this) ?: return
        forwarding.call(target, method, *arguments)
    }
}
