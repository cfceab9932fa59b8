package com.droptrack.android

import android.content.Context

/**
 * How a process in which the app's code has not run gets a fresh device credential after the server
 * refused the stored one (it expired while the app was killed). Implement it with a public no-argument
 * constructor and name the class in `DropTrackSetup.credentialProvider`; the library remembers the
 * name and instantiates it in such a process. Called on a background thread; it may block (ask your
 * backend, which mints the credential with its API key), and throws when it cannot get one.
 * Without a provider, work that needs a fresh credential waits until the app next calls `DropTrack.start`.
 */
interface DropTrackCredentialProvider {
    fun deviceCredential(context: Context, forceRefresh: Boolean): String
}
