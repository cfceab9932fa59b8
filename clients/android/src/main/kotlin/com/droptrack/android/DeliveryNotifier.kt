package com.droptrack.android

import android.app.PendingIntent
import android.content.Context
import android.content.Intent
import android.content.pm.PackageManager
import android.os.Build
import android.util.Log
import androidx.annotation.RequiresApi
import androidx.core.app.NotificationChannelCompat
import androidx.core.app.NotificationCompat
import androidx.core.app.NotificationManagerCompat
import androidx.core.graphics.drawable.IconCompat
import com.droptrack.android.core.AndroidRules
import com.droptrack.android.core.BrandColor
import com.droptrack.android.core.CardIntent
import com.droptrack.android.core.CardIntents
import com.droptrack.android.core.DeviceFacts
import com.droptrack.android.core.LaunchFlag
import com.droptrack.android.core.LiveUpdatePlanner
import com.droptrack.android.core.NotificationPlan
import com.droptrack.android.core.NotificationSurface
import com.droptrack.android.core.PendingFlag

/**
 * Posts a [NotificationPlan] as a Live Update through androidx's NotificationCompat (core 1.17),
 * which backports Android 16's calls: the chip text and the 36.1 promotion request are extras a
 * device without them ignores, so no call here needs a minor-version guard or compileSdk 36.1.
 * Only the segmented bar is Android 16's; before it the card gets a plain progress bar.
 * The decisions are all in the plan and in [CardIntents]; this class only makes platform calls.
 */
class DeliveryNotifier(
    private val context: Context,
    /** The status-bar icon: white on transparent (a drawable resource id). */
    @Volatile var smallIcon: Int,
    /** The courier icon that rides the bar (a drawable resource id). */
    @Volatile var trackerIcon: Int,
    private val channelName: CharSequence = "Delivery updates",
    /** Where a card that asked for promotion and cannot have it is reported (see [AndroidRules.promotionWarning]). */
    private val log: (String) -> Unit = { line -> Log.w("DropTrack", line) }
) : NotificationSurface {
    private val manager = NotificationManagerCompat.from(context)

    /** The app's `com.droptrack.android.BRAND_COLOR` manifest meta-data, else DropTrack's orange ([BrandColor]). */
    override val brandColor: String by lazy { BrandColor.resolve(manifestBrandColor(), log) }

    private fun manifestBrandColor(): String? =
        try {
            context.packageManager.getApplicationInfo(context.packageName, PackageManager.GET_META_DATA)
                .metaData?.getString(BrandColor.MANIFEST_KEY)
        } catch (missing: PackageManager.NameNotFoundException) {
            null
        }

    /** The channel, created once; DEFAULT importance because MIN cannot be promoted. A no-op before API 26. */
    fun ensureChannel() {
        if (manager.getNotificationChannelCompat(CHANNEL_ID) == null) {
            manager.createNotificationChannel(
                NotificationChannelCompat.Builder(CHANNEL_ID, NotificationManagerCompat.IMPORTANCE_DEFAULT).setName(channelName).build()
            )
        }
    }

    /** Posts the card; needs POST_NOTIFICATIONS from Android 13 (see [NotificationPermission]), else nothing shows. */
    override fun post(plan: NotificationPlan) {
        ensureChannel()
        val builder = NotificationCompat.Builder(context, CHANNEL_ID)
            .setSmallIcon(smallIcon)
            .setContentTitle(plan.title)
            .setContentText(plan.text)
            .setSubText(plan.subText)
            .setOngoing(plan.ongoing)
            .setOnlyAlertOnce(true)
            // Colour but not colorized: on current Android 16 builds setColorized(true) prevents promotion.
            .setColor(AndroidRules.argb(brandColor))
            .setShortCriticalText(plan.chipText)
            .setRequestPromotedOngoing(plan.requestPromotion)
            .setDeleteIntent(pendingBroadcast(CardIntents.delete(plan.tag)))
        pendingLaunch(CardIntents.content(plan.tag))?.let { builder.setContentIntent(it) }
        plan.timeoutAfterMillis?.let { builder.setTimeoutAfter(it) }
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
        val notification = builder.build()
        if (Build.VERSION.SDK_INT >= Build.VERSION_CODES.BAKLAVA) {
            AndroidRules.promotionWarning(plan, NotificationCompat.hasPromotableCharacteristics(notification))?.let { log(it) }
        }
        try {
            manager.notify(plan.tag, plan.id, notification)
        } catch (denied: SecurityException) {
            // Android 13+ without POST_NOTIFICATIONS: nothing can show; the facts say so to the server.
        }
    }

    override fun remove(activityId: String) = manager.cancel(activityId, LiveUpdatePlanner.stableId(activityId))

    /** The cards shown now: this library's notifications (tag = activity id, id = its stable id), not the app's others. */
    override fun shown(): Set<String>? = manager.activeNotifications
        .filter { it.tag != null && it.id == LiveUpdatePlanner.stableId(it.tag) }
        .map { it.tag }
        .toSet()

    override fun facts(): DeviceFacts = deviceFacts()

    /** The app's launch intent, opened on the activity; null when the app has no launcher activity. */
    private fun pendingLaunch(plan: CardIntent): PendingIntent? {
        val intent = context.packageManager.getLaunchIntentForPackage(context.packageName) ?: return null
        for (flag in plan.launchFlags) {
            intent.addFlags(
                when (flag) {
                    LaunchFlag.SINGLE_TOP -> Intent.FLAG_ACTIVITY_SINGLE_TOP
                    LaunchFlag.CLEAR_TOP -> Intent.FLAG_ACTIVITY_CLEAR_TOP
                }
            )
        }
        for ((name, value) in plan.extras) intent.putExtra(name, value)
        return PendingIntent.getActivity(context, plan.requestCode, intent, pendingFlags(plan))
    }

    /** An explicit broadcast to the library's receiver (not exported: only this app's PendingIntents reach it). */
    private fun pendingBroadcast(plan: CardIntent): PendingIntent {
        val intent = Intent(context, CardDismissedReceiver::class.java).setAction(plan.action).setPackage(context.packageName)
        for ((name, value) in plan.extras) intent.putExtra(name, value)
        return PendingIntent.getBroadcast(context, plan.requestCode, intent, pendingFlags(plan))
    }

    private fun pendingFlags(plan: CardIntent): Int = plan.pendingFlags.fold(0) { flags, flag ->
        flags or when (flag) {
            PendingFlag.IMMUTABLE -> PendingIntent.FLAG_IMMUTABLE
            PendingFlag.UPDATE_CURRENT -> PendingIntent.FLAG_UPDATE_CURRENT
        }
    }

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

    /** Whether Android 16 lets this app promote notifications now (the per-app Live Updates switch); false before 36 and on DT-116 builds. */
    fun canPostPromoted(): Boolean = deviceFacts().canPostPromoted == true

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

        /** A drawable id by name, or 0 when the app has none of that name. */
        fun drawable(context: Context, name: String?): Int =
            if (name == null) 0 else context.resources.getIdentifier(name, "drawable", context.packageName)

        /**
         * A notifier with the status-bar icon looked up by name (see [AndroidRules.STATUS_BAR_ICON_NAMES]),
         * for code that has no R ids at hand: the FCM service on a cold start, and the Expo module.
         */
        fun withIconsByName(context: Context): DeliveryNotifier {
            val icon = AndroidRules.statusBarIcon(AndroidRules.STATUS_BAR_ICON_NAMES) { name -> drawable(context, name) }
            return DeliveryNotifier(context, icon, icon)
        }
    }
}
