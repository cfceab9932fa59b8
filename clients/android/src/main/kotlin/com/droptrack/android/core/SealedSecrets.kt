package com.droptrack.android.core

import java.io.File
import java.io.FileInputStream
import java.io.FileOutputStream
import java.io.IOException
import java.security.GeneralSecurityException
import java.security.KeyStore
import javax.crypto.Cipher
import javax.crypto.KeyGenerator
import javax.crypto.SecretKey
import javax.crypto.spec.GCMParameterSpec

/**
 * Where the key that seals DropTrack's secrets comes from. On a phone it is an AES key generated
 * inside Android's Keystore, which never hands it out (`AndroidKeystoreKeys` in the glue); on the
 * JVM, [KeystoreFileKeys]. The key is made once and found again by every later process.
 */
interface SecretKeySource {
    /** The key, made now if there is none yet. */
    fun key(): SecretKey
}

/**
 * Secrets (the device credential, a token not yet registered) sealed with AES-GCM under a key from
 * [keys], the ciphertext kept in [values] under `secret.<name>`. A value that no longer opens (the
 * app's data was restored from a backup onto another phone, whose Keystore has another key) reads
 * as absent and is removed, so the library asks the app for a fresh one rather than failing.
 */
class SealedSecrets(
    private val values: KeyValueStore,
    private val keys: SecretKeySource,
    private val log: (String) -> Unit = {}
) {
    @Synchronized
    fun read(name: String): String? {
        val stored = values.get(PREFIX + name) ?: return null
        val parts = stored.split(':')
        return try {
            require(parts.size == 2) { "not iv:ciphertext" }
            val cipher = Cipher.getInstance(TRANSFORMATION)
            cipher.init(Cipher.DECRYPT_MODE, keys.key(), GCMParameterSpec(TAG_BITS, Hex.decode(parts[0])))
            String(cipher.doFinal(Hex.decode(parts[1])), Charsets.UTF_8)
        } catch (error: GeneralSecurityException) {
            forget(name, error)
        } catch (error: IllegalArgumentException) {
            forget(name, error)
        }
    }

    @Synchronized
    fun write(name: String, secret: String) {
        val cipher = Cipher.getInstance(TRANSFORMATION)
        // No IV of ours: Android's Keystore refuses caller-chosen IVs for encryption and makes one,
        // as the JVM's provider does; it is read back from the cipher.
        cipher.init(Cipher.ENCRYPT_MODE, keys.key())
        val sealed = cipher.doFinal(secret.toByteArray(Charsets.UTF_8))
        values.put(PREFIX + name, Hex.encode(cipher.iv) + ":" + Hex.encode(sealed))
    }

    @Synchronized
    fun remove(name: String) = values.put(PREFIX + name, null)

    private fun forget(name: String, error: Exception): String? {
        log("the stored $name no longer opens (${error.javaClass.simpleName}); it is dropped and asked for again")
        values.put(PREFIX + name, null)
        return null
    }

    companion object {
        const val PREFIX = "secret."
        private const val TRANSFORMATION = "AES/GCM/NoPadding"
        private const val TAG_BITS = 128
    }
}

/**
 * The JVM's key source: a 256-bit AES key in a PKCS#12 key store file (0600). On a phone the
 * library uses the Android Keystore instead, where the key cannot be read out; this one protects
 * the secrets only as far as the file's mode does, and exists so the sealing runs in the tests.
 */
class KeystoreFileKeys(private val file: File, private val alias: String = "droptrack") : SecretKeySource {
    // The file's mode guards it, not this password: PKCS#12 needs one.
    private val password = "droptrack".toCharArray()

    @Synchronized
    override fun key(): SecretKey {
        val store = KeyStore.getInstance("PKCS12")
        if (file.exists()) {
            FileInputStream(file).use { store.load(it, password) }
            (store.getKey(alias, password) as? SecretKey)?.let { return it }
        } else {
            store.load(null, password)
        }
        val made = KeyGenerator.getInstance("AES").apply { init(256) }.generateKey()
        store.setEntry(alias, KeyStore.SecretKeyEntry(made), KeyStore.PasswordProtection(password))
        val temporary = File(file.path + ".tmp")
        FileKeyValueStore.ownerOnly(temporary)
        FileOutputStream(temporary).use { store.store(it, password) }
        if (!temporary.renameTo(file)) throw IOException("could not write ${file.path}")
        return made
    }
}

/** Lowercase hex, for ciphertext kept as a string. */
object Hex {
    fun encode(bytes: ByteArray): String = bytes.joinToString("") { String.format("%02x", it.toInt() and 0xFF) }

    fun decode(text: String): ByteArray {
        require(text.length % 2 == 0 && text.all { it in "0123456789abcdef" }) { "not lowercase hex" }
        return ByteArray(text.length / 2) { index -> text.substring(index * 2, index * 2 + 2).toInt(16).toByte() }
    }
}
