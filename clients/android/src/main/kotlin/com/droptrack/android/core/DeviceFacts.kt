package com.droptrack.android.core

/**
 * What the app knows about the phone, sent with the FCM token (`device` in `POST /v1/tokens/fcm`).
 * A null fact is an unknown one and is sent as JSON null.
 */
data class DeviceFacts(
    /** `NotificationManager.areNotificationsEnabled()`. */
    val notificationsEnabled: Boolean? = null,
    /** `NotificationManager.canPostPromotedNotifications()` (API 36+), else null. */
    val canPostPromoted: Boolean? = null,
    /** The user's per-app Live Updates switch. */
    val userAllowsLiveUpdates: Boolean? = null,
    /** `Build.MANUFACTURER`, e.g. `samsung`. */
    val manufacturer: String? = null,
    /** `Build.VERSION.RELEASE`, e.g. `16`. */
    val osVersion: String? = null
) {
    fun toJson(): String = MiniJson.write(
        linkedMapOf<String, Any?>(
            "notificationsEnabled" to notificationsEnabled,
            "canPostPromoted" to canPostPromoted,
            "userAllowsLiveUpdates" to userAllowsLiveUpdates,
            "manufacturer" to manufacturer,
            "osVersion" to osVersion
        )
    )
}
