package com.droptrack.android.core

/**
 * The phone's notification shade as the sync sees it: the I/O seam between the decisions (plain
 * Kotlin, tested on the JVM) and Android's `NotificationManagerCompat` (`DeliveryNotifier`).
 */
interface NotificationSurface {
    /** What the phone allows now (notifications on, promotion allowed), reported with the token. */
    fun facts(): DeviceFacts

    /** Posts the card for [NotificationPlan.tag], or replaces the one shown, with its tap and swipe intents. */
    fun post(plan: NotificationPlan)

    /** Removes the card of [activityId], if shown. */
    fun remove(activityId: String)

    /** The activity ids whose cards the system shows now, or null when it cannot say. */
    fun shown(): Set<String>?

    /** The colour the card and its bar are drawn with (#RRGGBB): the app's, else [BrandColor.DEFAULT]. */
    val brandColor: String
        get() = BrandColor.DEFAULT
}
