package com.droptrack.android.core

import java.io.File
import java.io.FileOutputStream
import java.io.IOException

/**
 * A small persistent map of strings: what a process that FCM starts cold needs from the one that
 * ran before it (the setup, the cards shown, the work still owed to the server). On a phone it is
 * the app's private SharedPreferences; on the JVM, [FileKeyValueStore]. Nothing secret goes in:
 * secrets go through [SealedSecrets], which keeps only ciphertext here.
 */
interface KeyValueStore {
    fun get(key: String): String?

    /** The keys that start with [prefix], sorted. */
    fun keys(prefix: String): List<String>

    /**
     * Applies every change at once (a null value removes the key) and returns only once it is
     * durable: the process may be killed right after, as FCM's and a receiver's often are.
     */
    fun write(changes: Map<String, String?>)
}

/** One value, for readability at call sites. */
fun KeyValueStore.put(key: String, value: String?) = write(mapOf(key to value))

/** A store that lives as long as its process: for code that needs no persistence. */
class MemoryKeyValueStore : KeyValueStore {
    private val values = java.util.TreeMap<String, String>()

    @Synchronized
    override fun get(key: String): String? = values[key]

    @Synchronized
    override fun keys(prefix: String): List<String> = values.keys.filter { it.startsWith(prefix) }

    @Synchronized
    override fun write(changes: Map<String, String?>) {
        for ((key, value) in changes) if (value == null) values.remove(key) else values[key] = value
    }
}

/**
 * The JVM's store: one JSON object in [file], read once when made (as SharedPreferences reads its
 * XML) and rewritten whole through a temporary file and a rename, so a crash leaves either the old
 * or the new file, never half of one. The file is 0600. Two instances on one file stand for
 * two processes one after the other, which is how the tests simulate a process death.
 */
class FileKeyValueStore(private val file: File) : KeyValueStore {
    private val values = java.util.TreeMap<String, String>(read(file))

    @Synchronized
    override fun get(key: String): String? = values[key]

    @Synchronized
    override fun keys(prefix: String): List<String> = values.keys.filter { it.startsWith(prefix) }

    @Synchronized
    override fun write(changes: Map<String, String?>) {
        val next = java.util.TreeMap(values)
        for ((key, value) in changes) if (value == null) next.remove(key) else next[key] = value
        file.parentFile?.mkdirs()
        val temporary = File(file.path + ".tmp")
        ownerOnly(temporary)
        FileOutputStream(temporary).use { stream ->
            stream.write(MiniJson.write(next).toByteArray(Charsets.UTF_8))
            stream.fd.sync()
        }
        if (!temporary.renameTo(file)) throw IOException("could not replace ${file.path}; check that its folder is writable")
        values.clear()
        values.putAll(next)
    }

    companion object {
        private fun read(file: File): Map<String, String> {
            if (!file.exists()) return emptyMap()
            val parsed = try {
                MiniJson.parse(file.readText())
            } catch (error: IllegalArgumentException) {
                throw IOException("${file.path} is not the JSON object DropTrack wrote (${error.message}); delete it to start afresh")
            }
            val map = parsed as? Map<*, *> ?: throw IOException("${file.path} is not a JSON object; delete it to start afresh")
            return map.entries.associate { (key, value) -> key.toString() to value.toString() }
        }

        /**
         * Creates [file] empty and readable by its owner only (0600) before anything is written to
         * it. java.io only: java.nio.file needs API 26 and the library's floor is 24.
         */
        fun ownerOnly(file: File) {
            file.delete()
            if (!file.createNewFile()) throw IOException("could not create ${file.path}")
            val owner = file.setReadable(false, false) && file.setReadable(true, true) &&
                file.setWritable(false, false) && file.setWritable(true, true) && file.setExecutable(false, false)
            if (!owner) throw IOException("could not make ${file.path} readable by its owner only")
        }
    }
}
