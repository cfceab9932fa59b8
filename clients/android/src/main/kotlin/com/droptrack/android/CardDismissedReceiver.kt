package com.droptrack.android

import android.content.BroadcastReceiver
import android.content.Context
import android.content.Intent
import com.droptrack.android.core.CardIntents
import kotlin.concurrent.thread

/**
 * The card's delete intent: the person swiped the card away (or cleared all). Declared by the
 * library's manifest, not exported, so only the PendingIntents this app made reach it. The card is
 * recorded as dismissed (never posted again) and the server hears `dismissed`, off the main thread
 * while `goAsync` keeps the process alive.
 */
class CardDismissedReceiver : BroadcastReceiver() {
    override fun onReceive(context: Context, intent: Intent) {
        val activityId = CardIntents.dismissedActivity(intent.action) { name -> intent.getStringExtra(name) } ?: return
        val pending = goAsync()
        val app = context.applicationContext
        thread(name = "droptrack-dismissed") {
            try {
                DropTrack.schedule(app, DropTrack.sync(app).dismissed(activityId))
            } finally {
                pending.finish()
            }
        }
    }
}
