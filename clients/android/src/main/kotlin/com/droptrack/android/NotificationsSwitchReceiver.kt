package com.droptrack.android

import android.app.NotificationManager
import android.content.BroadcastReceiver
import android.content.Context
import android.content.Intent
import kotlin.concurrent.thread

/**
 * `ACTION_APP_BLOCK_STATE_CHANGED` (Android 9+), which the system sends to this app alone when the
 * person blocks or allows its notifications, even while the app is not running: the token is
 * registered again with the new device facts, so the server hears it now rather than at the next
 * push or launch. Android 16's Live Updates switch broadcasts nothing; `DropTrack.reconcile` (the
 * app coming to the front) and every push notice that one.
 */
class NotificationsSwitchReceiver : BroadcastReceiver() {
    override fun onReceive(context: Context, intent: Intent) {
        if (intent.action != NotificationManager.ACTION_APP_BLOCK_STATE_CHANGED) return
        val pending = goAsync()
        val app = context.applicationContext
        thread(name = "droptrack-switch") {
            try {
                DropTrack.schedule(app, DropTrack.sync(app).factsChanged())
            } finally {
                pending.finish()
            }
        }
    }
}
