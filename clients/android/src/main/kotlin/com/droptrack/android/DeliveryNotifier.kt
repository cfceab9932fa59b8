package com.droptrack.android

import android.app.Notification
import android.app.NotificationChannel
import android.app.NotificationManager
import android.content.Context
import android.graphics.Color
import android.graphics.drawable.Icon
import android.os.Build
import com.droptrack.android.core.DeviceFacts
import com.droptrack.android.core.NotificationPlan

/**
 * Posts a [NotificationPlan] as a Live Update: a promoted `Notification.ProgressStyle` on Android
 * 16 (API 36), an ordinary progress notification before it. The decisions are all in the plan;
 * this class only translates them to platform calls, so it is thin enough to review by eye.
 * Assumes minSdk 26 (notification channels).
 */
class DeliveryNotifier(
    private val context: Context,
    /** The app's status-bar icon (a drawable resource id). */
    private val smallIcon: Int,
    /** The courier icon that rides the bar (a drawable resource id). */
    private val trackerIcon: Int,
    private val channelName: CharSequence = "Delivery updates"
) {
    private val manager: NotificationManager = context.getSystemService(NotificationManager::class.java)

    /** The channel, created once; DEFAULT importance because MIN cannot be promoted. */
    fun ensureChannel() {
        if (manager.getNotificationChannel(CHANNEL_ID) == null) {
            manager.createNotificationChannel(NotificationChannel(CHANNEL_ID, channelName, NotificationManager.IMPORTANCE_DEFAULT))
        }
    }

    fun post(plan: NotificationPlan) {
        ensureChannel()
        val builder = Notification.Builder(context, CHANNEL_ID)
            .setSmallIcon(smallIcon)
            .setContentTitle(plan.title)
            .setContentText(plan.text)
            .setSubText(plan.subText)
            .setOngoing(plan.ongoing)
            .setOnlyAlertOnce(true)
            // Colour but not colorized: on current Android 16 builds setColorized(true) prevents promotion.
            .setColor(Color.parseColor(com.droptrack.android.core.LiveUpdatePlanner.BRAND_COLOR))
        val whenMillis = plan.whenMillis
        if (whenMillis != null) {
            builder.setWhen(whenMillis).setShowWhen(true)
        } else {
            // A past ETA would read "5 min ago" on the card: show no time at all.
            builder.setShowWhen(false)
        }
        if (Build.VERSION.SDK_INT >= Build.VERSION_CODES.BAKLAVA) {
            builder.setStyle(progressStyle(plan))
                .setShortCriticalText(plan.chipText)
                .setRequestPromotedOngoing(plan.requestPromotion)
        } else {
            // Before Android 16: a plain determinate bar, no promotion, no chip.
            builder.setProgress(plan.segments.sumBy { it.length }, plan.progress, false)
        }
        manager.notify(plan.tag, plan.id, builder.build())
    }

    fun cancel(plan: NotificationPlan) = manager.cancel(plan.tag, plan.id)

    private fun progressStyle(plan: NotificationPlan): Notification.ProgressStyle =
        Notification.ProgressStyle()
            .setStyledByProgress(true)
            .setProgressSegments(plan.segments.map { segment ->
                val made = Notification.ProgressStyle.Segment(segment.length)
                segment.color?.let { made.setColor(Color.parseColor(it)) }
                made
            })
            .setProgressPoints(plan.points.map { point ->
                val made = Notification.ProgressStyle.Point(point.position)
                point.color?.let { made.setColor(Color.parseColor(it)) }
                made
            })
            .setProgress(plan.progress)
            .setProgressTrackerIcon(Icon.createWithResource(context, trackerIcon))

    /** What the device reports with its token; the promotion facts exist only on API 36+. */
    fun deviceFacts(): DeviceFacts {
        val promoted: Boolean? = if (Build.VERSION.SDK_INT >= Build.VERSION_CODES.BAKLAVA) {
            manager.canPostPromotedNotifications()
        } else {
            null
        }
        return DeviceFacts(
            notificationsEnabled = manager.areNotificationsEnabled(),
            canPostPromoted = promoted,
            // On Android 16 the per-app "Live Updates" switch is what canPostPromotedNotifications() reports.
            userAllowsLiveUpdates = promoted,
            manufacturer = Build.MANUFACTURER,
            osVersion = Build.VERSION.RELEASE
        )
    }

    companion object {
        const val CHANNEL_ID = "droptrack_live_updates"
    }
}
