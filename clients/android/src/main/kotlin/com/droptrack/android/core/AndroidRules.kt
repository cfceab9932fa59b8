package com.droptrack.android.core

/**
 * The decisions the Android glue makes about the platform, as plain functions so they are tested
 * on the JVM: the glue only feeds them `Build.VERSION.SDK_INT` and the platform's answers.
 */
object AndroidRules {
    /** Android 16 (API 36): ProgressStyle, the status-bar chip and the promotion check. */
    const val BAKLAVA = 36

    /** Android 13 (API 33): POST_NOTIFICATIONS became a runtime permission. */
    const val TIRAMISU = 33

    /**
     * Whether the user must be asked for POST_NOTIFICATIONS: only from Android 13, and only while
     * it is not granted. Before 13 it is granted at install and asking does nothing.
     */
    fun needsNotificationPermissionRequest(sdkInt: Int, granted: Boolean): Boolean = sdkInt >= TIRAMISU && !granted

    /**
     * The device fact "may post promoted notifications": unknown (null) before Android 16, where
     * nothing is promoted; else what [probe] answers, and false when it answers null, which the
     * glue returns when the platform method is missing (DT-116: some pre-QPR Android 16 builds
     * lack it and throw NoSuchMethodError).
     */
    fun canPostPromoted(sdkInt: Int, probe: () -> Boolean?): Boolean? {
        if (sdkInt < BAKLAVA) return null
        return probe() ?: false
    }

    /**
     * The line to log when a card asked to be promoted and Android 16 says the built notification
     * lacks the promotable characteristics (`NotificationCompat.hasPromotableCharacteristics`
     * false: it then shows as an ordinary notification, without the chip), naming the reasons the
     * plan foresaw, or saying none was foreseen. Null when it is promotable, did not ask, or the
     * device cannot say ([promotable] null: before Android 16).
     */
    fun promotionWarning(plan: NotificationPlan, promotable: Boolean?): String? {
        if (!plan.requestPromotion || promotable != false) return null
        val why = if (plan.promotionRefusals.isEmpty()) {
            "none foreseen from the device's facts; check the channel's importance and that the card is not colorized"
        } else {
            plan.promotionRefusals.joinToString(", ")
        }
        return "Live Update ${plan.tag} posted but not promotable (hasPromotableCharacteristics() is false): $why"
    }

    /** `#RRGGBB` or `#AARRGGBB` as the ARGB int `setColor` takes; an unreadable colour is refused, naming it. */
    fun argb(color: String): Int {
        val hex = color.removePrefix("#")
        require(color.startsWith("#") && (hex.length == 6 || hex.length == 8) && hex.all { it in "0123456789abcdefABCDEF" }) {
            "colour '$color' is not #RRGGBB or #AARRGGBB"
        }
        val value = java.lang.Long.parseLong(hex, 16)
        return (if (hex.length == 6) value or 0xFF000000 else value).toInt()
    }

    /**
     * The status-bar icon: the first of [names] the app's resources have ([lookup] answers 0 for a
     * missing one). Never the launcher icon: Android draws status-bar icons as a white mask, so a
     * full-colour launcher icon shows as a white blob.
     */
    fun statusBarIcon(names: List<String>, lookup: (String) -> Int): Int {
        for (name in names) {
            val id = lookup(name)
            if (id != 0) return id
        }
        throw IllegalStateException(
            "no status-bar icon among ${names.joinToString()}: add a white-on-transparent drawable named '${names.first()}'"
        )
    }

    /**
     * Where DropTrack looks for a status-bar icon by name: the app's own (expo-notifications writes
     * app.json's `notification.icon` as the drawable `notification_icon`), then the one this
     * library ships.
     */
    val STATUS_BAR_ICON_NAMES = listOf("notification_icon", "droptrack_ic_stat_delivery")
}
