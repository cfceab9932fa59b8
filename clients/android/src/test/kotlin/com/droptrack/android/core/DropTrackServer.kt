package com.droptrack.android.core

import java.io.File
import java.net.ServerSocket
import java.nio.file.Files
import java.util.concurrent.TimeUnit

/**
 * A real `droptrack serve` on 127.0.0.1 for the registration tests: a fresh config with one app
 * (`apps add` prints its API key), a SQLite store in a temporary folder, and a free port.
 * The binary comes from the `droptrack.binary` system property (set by clients/android/test.sh).
 */
class DropTrackServer {
    private val binary = System.getProperty("droptrack.binary") ?: error("set -Ddroptrack.binary=…/droptrack")
    private val folder: File = Files.createTempDirectory("droptrack-android").toFile()
    private val config = File(folder, "droptrack.json")
    private var process: Process? = null
    val port: Int = ServerSocket(0).use { it.localPort }
    val baseUrl = "http://127.0.0.1:$port"

    /** The app's API key: the bearer until device credentials land. Never printed. */
    val apiKey: String = run {
        val adding = ProcessBuilder(binary, "apps", "add", "--config", config.path, "--id", "shop", "--bundle-id", "com.x")
            .redirectError(File(folder, "apps-add.err")).start()
        val key = adding.inputStream.bufferedReader().readText().trim()
        check(adding.waitFor(30, TimeUnit.SECONDS) && adding.exitValue() == 0) { "apps add failed" }
        check(key.startsWith("dt_shop_")) { "apps add printed no key" }
        key
    }

    /** Starts the server and waits (at most 30 s) for its banner. */
    fun start() {
        val out = File(folder, "serve.out")
        val builder = ProcessBuilder(binary, "serve", "--config", config.path, "--listen", "127.0.0.1:$port")
            .redirectOutput(out).redirectError(File(folder, "serve.err"))
        builder.environment()["DROPTRACK_STORE"] = "sqlite:${folder.path}/store.sqlite"
        val started = builder.start()
        process = started
        val deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30)
        while (System.nanoTime() < deadline) {
            if (out.exists() && out.readText().contains("droptrack serving on")) return
            check(started.isAlive) { "droptrack serve exited: ${File(folder, "serve.err").readText().take(2000)}" }
            Thread.sleep(50)
        }
        error("droptrack serve did not start within 30 s")
    }

    /** Stops the server (SIGTERM, then SIGKILL after 10 s) and removes the folder. */
    fun stop() {
        process?.let {
            it.destroy()
            if (!it.waitFor(10, TimeUnit.SECONDS)) it.destroyForcibly().waitFor(10, TimeUnit.SECONDS)
        }
        process = null
        folder.deleteRecursively()
    }
}
