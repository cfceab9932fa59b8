package com.droptrack.android

import android.content.Context
import android.content.SharedPreferences
import android.security.keystore.KeyGenParameterSpec
import android.security.keystore.KeyProperties
import com.droptrack.android.core.KeyValueStore
import com.droptrack.android.core.SecretKeySource
import java.io.IOException
import java.security.KeyStore
import javax.crypto.KeyGenerator
import javax.crypto.SecretKey

/**
 * The library's [KeyValueStore] on a phone: the app's private SharedPreferences file
 * `com.droptrack.android` (0600, in the app's data folder). Writes `commit()`, which returns once
 * the file is written: FCM's service and the dismiss receiver may be killed right after they return.
 */
class SharedPreferencesStore(context: Context) : KeyValueStore {
    private val preferences: SharedPreferences = context.getSharedPreferences(FILE, Context.MODE_PRIVATE)

    override fun get(key: String): String? = preferences.getString(key, null)

    override fun keys(prefix: String): List<String> = preferences.all.keys.filter { it.startsWith(prefix) }.sorted()

    override fun write(changes: Map<String, String?>) {
        val editor = preferences.edit()
        for ((key, value) in changes) if (value == null) editor.remove(key) else editor.putString(key, value)
        if (!editor.commit()) throw IOException("could not write the shared preferences file '$FILE' (is the app's storage full?)")
    }

    companion object {
        const val FILE = "com.droptrack.android"
    }
}

/**
 * The key that seals the credential: a 256-bit AES-GCM key generated inside the Android Keystore
 * under [alias], which never leaves it (hardware-backed where the phone has a TEE or StrongBox). A
 * backup restored onto another phone brings the ciphertext but not the key; `SealedSecrets` then
 * drops what no longer opens and the library asks the app for a fresh credential.
 */
class AndroidKeystoreKeys(private val alias: String = "com.droptrack.android.secrets") : SecretKeySource {
    @Synchronized
    override fun key(): SecretKey {
        val keystore = KeyStore.getInstance(PROVIDER)
        keystore.load(null)
        (keystore.getKey(alias, null) as? SecretKey)?.let { return it }
        val generator = KeyGenerator.getInstance(KeyProperties.KEY_ALGORITHM_AES, PROVIDER)
        generator.init(
            KeyGenParameterSpec.Builder(alias, KeyProperties.PURPOSE_ENCRYPT or KeyProperties.PURPOSE_DECRYPT)
                .setBlockModes(KeyProperties.BLOCK_MODE_GCM)
                .setEncryptionPaddings(KeyProperties.ENCRYPTION_PADDING_NONE)
                .setKeySize(256)
                .build()
        )
        return generator.generateKey()
    }

    companion object {
        private const val PROVIDER = "AndroidKeyStore"
    }
}
