package com.droptrack.android.core

import java.io.IOException
import java.util.concurrent.TimeUnit
import java.util.concurrent.locks.ReentrantLock

/**
 * Hands the registration client a device credential that only the app can get (from its own
 * backend, often in JavaScript): [credential] asks through [request] and waits, bounded by
 * [timeoutMillis], until the app calls [supply]. The credential is kept until a 401 asks for a
 * fresh one. Used by the Expo module; a native app can pass its own function instead.
 */
class CredentialRelay(
    private val timeoutMillis: Long = 30_000,
    private val request: (reason: String) -> Unit
) {
    private val lock = ReentrantLock()
    private val supplied = lock.newCondition()
    private var current: String? = null
    private var generation = 0

    /** The app's answer to a request (or a credential it had before anyone asked). */
    fun supply(credential: String) {
        lock.lock()
        try {
            current = credential
            generation += 1
            supplied.signalAll()
        } finally {
            lock.unlock()
        }
    }

    /** The credential; `forceRefresh` (after a 401) waits for a new one. Throws [IOException] on timeout. */
    fun credential(forceRefresh: Boolean): String {
        lock.lock()
        try {
            val known = current
            if (known != null && !forceRefresh) return known
            val asked = generation
            request(if (known == null) "start" else "refused")
            var remaining = TimeUnit.MILLISECONDS.toNanos(timeoutMillis)
            while (generation == asked) {
                if (remaining <= 0) {
                    throw IOException(
                        "the app supplied no device credential within $timeoutMillis ms; check that the app's credential function reaches its backend"
                    )
                }
                remaining = supplied.awaitNanos(remaining)
            }
            return current!!
        } finally {
            lock.unlock()
        }
    }
}
