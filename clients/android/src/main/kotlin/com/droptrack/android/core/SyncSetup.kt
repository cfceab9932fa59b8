package com.droptrack.android.core

import java.net.URI
import java.net.URISyntaxException
import java.util.UUID

/**
 * What the library needs to talk to the server, kept in the [KeyValueStore] when the app configures
 * it, so a process that FCM starts while the app is killed (no `Application` code, no JavaScript)
 * reads it back. No secret is in it: the device credential is sealed separately ([SealedSecrets]).
 */
data class SyncSetup(
    val baseUrl: String,
    val userId: String,
    val deviceId: String,
    /**
     * The class name of the app's credential provider, which a cold process instantiates to ask for a
     * fresh device credential after a 401. Null: only the credential stored last is used, and work
     * that needs a fresh one waits until the app supplies it.
     */
    val credentialProvider: String? = null,
    /** Drawable names, not ids: resource ids change from one build to the next. */
    val smallIconName: String? = null,
    val trackerIconName: String? = null
) {
    /** This setup, or an [IllegalArgumentException] naming the first wrong field and the fix. */
    fun checked(): SyncSetup {
        val uri = try {
            URI(baseUrl)
        } catch (error: URISyntaxException) {
            throw IllegalArgumentException("'baseUrl' '$baseUrl' is not a URL; give e.g. https://push.example.com")
        }
        val local = uri.host in LOCAL_HOSTS
        require(uri.scheme == "https" || (uri.scheme == "http" && local)) {
            "'baseUrl' must be https (Android refuses cleartext by default); http only for ${LOCAL_HOSTS.joinToString()}"
        }
        require(uri.host != null) { "'baseUrl' '$baseUrl' has no host; give e.g. https://push.example.com" }
        require(isIdentifier(userId)) { "'userId' '$userId' is not an id: $IDENTIFIER_RULE (the signed-in user's, as the device credential names it)" }
        require(isIdentifier(deviceId)) { "'deviceId' '$deviceId' is not an id: $IDENTIFIER_RULE" }
        return this
    }

    fun save(store: KeyValueStore) {
        store.write(
            mapOf(
                Key.BASE_URL to baseUrl, Key.USER_ID to userId, Key.DEVICE_ID to deviceId,
                Key.CREDENTIAL_PROVIDER to credentialProvider, Key.SMALL_ICON to smallIconName,
                Key.TRACKER_ICON to trackerIconName
            )
        )
    }

    companion object {
        const val IDENTIFIER_RULE = "1 to 128 characters from A-Z a-z 0-9 . _ : -"
        private val LOCAL_HOSTS = listOf("localhost", "127.0.0.1", "10.0.2.2")

        private object Key {
            const val BASE_URL = "setup.baseUrl"
            const val USER_ID = "setup.userId"
            const val DEVICE_ID = "setup.deviceId"
            const val CREDENTIAL_PROVIDER = "setup.credentialProvider"
            const val SMALL_ICON = "setup.smallIcon"
            const val TRACKER_ICON = "setup.trackerIcon"
            const val MADE_DEVICE_ID = "device.madeId"
        }

        /** The setup saved last, or null when the app never configured the library on this install. */
        fun load(store: KeyValueStore): SyncSetup? {
            val baseUrl = store.get(Key.BASE_URL) ?: return null
            val userId = store.get(Key.USER_ID) ?: return null
            val deviceId = store.get(Key.DEVICE_ID) ?: return null
            return SyncSetup(
                baseUrl, userId, deviceId, store.get(Key.CREDENTIAL_PROVIDER), store.get(Key.SMALL_ICON), store.get(Key.TRACKER_ICON)
            )
        }

        /**
         * This install's device id when the app gives none: made once (a random UUID, as
         * docs/reference/device-api.md asks) and kept, so it survives restarts and a change of user.
         */
        fun deviceId(store: KeyValueStore): String {
            store.get(Key.MADE_DEVICE_ID)?.let { return it }
            val made = "android-" + UUID.randomUUID()
            store.put(Key.MADE_DEVICE_ID, made)
            return made
        }

        fun isIdentifier(text: String): Boolean =
            text.length in 1..128 && text != "." && text != ".." && text.all { it in 'A'..'Z' || it in 'a'..'z' || it in '0'..'9' || it in "._:-" }
    }
}
