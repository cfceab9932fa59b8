package com.droptrack.android

import android.Manifest
import android.app.Activity
import android.content.Context
import android.os.Build
import androidx.core.app.ActivityCompat
import androidx.core.content.ContextCompat
import androidx.core.content.PermissionChecker
import com.droptrack.android.core.AndroidRules

/**
 * The runtime POST_NOTIFICATIONS permission (Android 13+): without it nothing DropTrack posts is
 * shown, and the token registers with `notificationsEnabled: false`. Ask once the user knows why,
 * e.g. when they place an order, then call `DropTrack.start` again so the server hears the change.
 */
object NotificationPermission {
    /** The request code [requestIfNeeded] uses unless given one. */
    const val REQUEST_CODE = 0x4454

    /** True below Android 13 (granted at install), else whether the user granted it. */
    fun isGranted(context: Context): Boolean {
        if (Build.VERSION.SDK_INT < Build.VERSION_CODES.TIRAMISU) return true
        return ContextCompat.checkSelfPermission(context, Manifest.permission.POST_NOTIFICATIONS) == PermissionChecker.PERMISSION_GRANTED
    }

    /**
     * Shows the system prompt on Android 13+ when the permission is not granted; the answer arrives
     * in [activity]'s `onRequestPermissionsResult` with [requestCode]. Returns whether it asked.
     */
    fun requestIfNeeded(activity: Activity, requestCode: Int = REQUEST_CODE): Boolean {
        if (!AndroidRules.needsNotificationPermissionRequest(Build.VERSION.SDK_INT, isGranted(activity))) return false
        ActivityCompat.requestPermissions(activity, arrayOf(Manifest.permission.POST_NOTIFICATIONS), requestCode)
        return true
    }
}
