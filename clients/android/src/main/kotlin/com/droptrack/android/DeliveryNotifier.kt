package com.droptrack.android

import android.content.Context
import android.os.Build
import androidx.annotation.RequiresApi
import androidx.core.app.NotificationChannelCompat
import androidx.core.app.NotificationCompat
import androidx.core.app.NotificationManagerCompat
import androidx.core.graphics.drawable.IconCompat
import com.droptrack.android.core.AndroidRules
import com.droptrack.android.core.DeviceFacts
import com.droptrack.android.core.LiveUpdatePlanner
import com.droptrack.android.core.NotificationPlan

/**
 * Posts a [NotificationPlan] as a Live Update through androidx's NotificationCompat (core 1.17),
 * which backports Android 16's calls: the chip text and the 36.1 promotion request are extras a
 * device without them ignores, so no call here needs a minor-version guard or compileSdk 36.1.
 * Only the segmented bar is Android 16's; before it the card gets a plain progress bar.
 * The decisions are all in the plan; this class only translates them to platform calls.
 */
class DeliveryNotifier(
    private val context: Context,
    /** The status-bar icon: white on transparent (a drawable resource id). */
    private val smallIcon: Int,
    /** The courier icon that rides the bar (a drawable resource id). */
    private val trackerIcon: Int,
    private val channelName: CharSequence = "Delivery updates"
) {
    private val manager = NotificationManagerCompat.from(context)

    /** The channel, created once; DEFAULT importance because MIN cannot be promoted. A no-op before API 26. */
    fun ensureChannel() {
        if (manager.getNotificationChannelCompat(CHANNEL_ID) == null) {
            manager.createNotificationChannel(
                NotificationChannelCompat.Builder(CHANNEL_ID, NotificationManagerCompat.IMPORTANCE_DEFAULT).setName(channelName).build()
            )
        }
    }

    /** Posts the card; needs POST_NOTIFICATIONS from Android 13 (see [NotificationPermission]). */
    fun post(plan: NotificationPlan) {
        ensureChannel()
        val builder = NotificationCompat.Builder(context, CHANNEL_ID)
            .setSmallIcon(smallIcon)
            .setContentTitle(plan.title)
            .setContentText(plan.text)
            .setSubText(plan.subText)
            .setOngoing(plan.ongoing)
            .setOnlyAlertOnce(true)
            // Colour but not colorized: on current Android 16 builds setColorized(true) prevents promotion.
            .setColor(AndroidRules.argb(LiveUpdatePlanner.BRAND_COLOR))
            .setShortCriticalText(plan.chipText)
            .setRequestPromotedOngoing(plan.requestPromotion)
        val whenMillis = plan.whenMillis
        if (whenMillis != null) {
            builder.setWhen(whenMillis).setShowWhen(true)
        } else {
            // A past ETA would read "5 min ago" on the card: show no time at all.
            builder.setShowWhen(false)
        }
        if (Build.VERSION.SDK_INT >= Build.VERSION_CODES.BAKLAVA) {
            builder.setStyle(progressStyle(plan))
        } else {
            // Before Android 16: a plain determinate bar, which is what promotion-less devices draw.
            builder.setProgress(plan.segments.sumBy { it.length }, plan.progress, false)
        }
        manager.notify(plan.tag, plan.id, builder.build())
    }

    fun cancel(plan: NotificationPlan) = manager.cancel(plan.tag, plan.id)

    /** The segmented bar; Android 16 draws it, so it is built only there. */
    @RequiresApi(Build.VERSION_CODES.BAKLAVA)
    private fun progressStyle(plan: NotificationPlan): NotificationCompat.ProgressStyle {
        return NotificationCompat.ProgressStyle()
            .setStyledByProgress(true)
            .setProgressSegments(plan.segments.map { segment ->
                val made = NotificationCompat.ProgressStyle.Segment(segment.length)
                segment.color?.let { made.setColor(AndroidRules.argb(it)) }
                made
            })
            .setProgressPoints(plan.points.map { point ->
                val made = NotificationCompat.ProgressStyle.Point(point.position)
                point.color?.let { made.setColor(AndroidRules.argb(it)) }
                made
            })
            .setProgress(plan.progress)
            .setProgressTrackerIcon(IconCompat.createWithResource(context, trackerIcon))
    }

    /** What the device reports with its token; the promotion facts exist only on Android 16. */
    fun deviceFacts(): DeviceFacts {
        val promoted = AndroidRules.canPostPromoted(Build.VERSION.SDK_INT) {
            // DT-116: NotificationManagerCompat guards SDK_INT >= 36 only, and some pre-QPR
            // Android 16 builds lack the platform method it then calls.
            try {
                manager.canPostPromotedNotifications()
            } catch (missing: NoSuchMethodError) {
                null
            }
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

        /**
         * A notifier with the status-bar icon looked up by name (see [AndroidRules.STATUS_BAR_ICON_NAMES]),
         * for code that has no R ids at hand: the FCM service on a cold start, and the Expo module.
         */
        fun withIconsByName(context: Context): DeliveryNotifier {
            val icon = AndroidRules.statusBarIcon(AndroidRules.STATUS_BAR_ICON_NAMES) { name ->
                context.resources.getIdentifier(name, "drawable", context.packageName)
            }
            return DeliveryNotifier(context, icon, icon)
        }
    }
}
