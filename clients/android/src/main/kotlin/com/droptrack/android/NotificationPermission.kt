package com.droptrack.android

import android.Manifest
import android.app.Activity
import android.content.ActivityNotFoundException
import android.content.Context
import android.content.Intent
import android.os.Build
import android.provider.Settings
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

    /**
     * Opens the screen where the person allows this app's Live Updates: Android 16's promotion
     * switch, else the app's notification settings (Android 8+), which some phones lack too.
     * Returns whether a screen opened; from a non-Activity context it starts a new task.
     */
    fun openLiveUpdateSettings(context: Context): Boolean {
        val actions = ArrayList<String>()
        if (Build.VERSION.SDK_INT >= Build.VERSION_CODES.BAKLAVA) actions.add(Settings.ACTION_APP_NOTIFICATION_PROMOTION_SETTINGS)
        if (Build.VERSION.SDK_INT >= Build.VERSION_CODES.O) actions.add(Settings.ACTION_APP_NOTIFICATION_SETTINGS)
        for (action in actions) {
            val intent = Intent(action).putExtra(Settings.EXTRA_APP_PACKAGE, context.packageName)
            if (context !is Activity) intent.addFlags(Intent.FLAG_ACTIVITY_NEW_TASK)
            try {
                context.startActivity(intent)
                return true
            } catch (missing: ActivityNotFoundException) {
                // This phone has no such screen: try the next one.
            }
        }
        return false
    }
}
