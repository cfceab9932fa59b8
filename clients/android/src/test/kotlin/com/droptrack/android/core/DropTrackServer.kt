package com.droptrack.android.core

import java.io.File
import java.net.HttpURLConnection
import java.net.ServerSocket
import java.net.URL
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

    /** The app's API key, which only the app's backend holds (here: [deviceCredential]). Never printed. */
    val apiKey: String = run {
        val key = run("apps", "add", "--config", config.path, "--id", "shop", "--bundle-id", "com.x")
        check(key.startsWith("dt_shop_")) { "apps add printed no key" }
        // A DropTrack-held signing key, so the backend can ask the server to mint device credentials.
        run("apps", "device-key", "rotate", "--config", config.path, "--app", "shop")
        key
    }

    private fun run(vararg arguments: String): String {
        val process = ProcessBuilder(binary, *arguments).redirectError(File(folder, "cli.err")).start()
        val output = process.inputStream.bufferedReader().readText().trim()
        check(process.waitFor(30, TimeUnit.SECONDS) && process.exitValue() == 0) {
            "droptrack ${arguments.take(2).joinToString(" ")} failed: ${File(folder, "cli.err").readText().take(500)}"
        }
        return output
    }

    /**
     * What the app's backend does when its app asks for a credential: `POST /v1/device-credentials`
     * with the API key, for [userId].
     */
    fun deviceCredential(userId: String, ttlSeconds: Int = 600): String {
        val connection = URL("$baseUrl/v1/device-credentials").openConnection() as HttpURLConnection
        connection.requestMethod = "POST"
        connection.doOutput = true
        connection.setRequestProperty("Authorization", "Bearer $apiKey")
        connection.setRequestProperty("Content-Type", "application/json")
        connection.outputStream.use { it.write("{\"userId\":\"$userId\",\"ttlSeconds\":$ttlSeconds}".toByteArray()) }
        check(connection.responseCode == 201) { "minting answered ${connection.responseCode}" }
        @Suppress("UNCHECKED_CAST")
        val body = MiniJson.parse(connection.inputStream.bufferedReader().readText()) as Map<String, Any?>
        return body["credential"] as String
    }

    /** Starts the server and waits (at most 30 s) for its banner; nothing when it runs already. */
    fun start() {
        if (process?.isAlive == true) return
        val out = File(folder, "serve.out")
        out.delete()
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
        pause()
        folder.deleteRecursively()
    }

    /** Stops the server but keeps its store and keys, so [start] brings the same server back. */
    fun pause() {
        process?.let {
            it.destroy()
            if (!it.waitFor(10, TimeUnit.SECONDS)) it.destroyForcibly().waitFor(10, TimeUnit.SECONDS)
        }
        process = null
    }

    /** The backend starts a delivery for [userId] (`POST /v1/activities` with the API key). */
    fun startActivity(activityId: String, userId: String) {
        val body = "{\"activityId\":\"$activityId\",\"userId\":\"$userId\",\"attributesType\":\"DeliveryAttributes\"," +
            "\"attributes\":{\"orderId\":\"A-1042\"},\"event\":{\"type\":\"delivery.step\",\"data\":{\"step\":\"placed\",\"courierName\":\"Sam\"}}," +
            "\"alert\":{\"title\":\"Order placed\"},\"idempotencyKey\":\"start-$activityId\"}"
        val status = call("POST", "/v1/activities", body).first
        check(status == 201 || status == 200) { "starting $activityId answered $status" }
    }

    /** The backend ends a delivery (`POST /v1/activities/{id}/end`). */
    fun endActivity(activityId: String) {
        val status = call("POST", "/v1/activities/$activityId/end", "{}").first
        check(status == 200) { "ending $activityId answered $status" }
    }

    /** The activity as the backend reads it (`GET /v1/activities/{id}` with the API key). */
    @Suppress("UNCHECKED_CAST")
    fun activity(activityId: String): Map<String, Any?> {
        val (status, text) = call("GET", "/v1/activities/$activityId", null)
        check(status == 200) { "reading $activityId answered $status" }
        return MiniJson.parse(text) as Map<String, Any?>
    }

    /** The `device_lifecycle` entries of the activity's timeline: (state, note) in order. */
    @Suppress("UNCHECKED_CAST")
    fun lifecycleReports(activityId: String): List<Pair<String, String>> =
        (activity(activityId)["timeline"] as List<Map<String, Any?>>)
            .filter { it["event"] == "device_lifecycle" }
            .map { (it["reason"] as String) to (it["note"] as? String ?: "") }

    private fun call(method: String, path: String, body: String?): Pair<Int, String> {
        val connection = URL(baseUrl + path).openConnection() as HttpURLConnection
        connection.requestMethod = method
        connection.setRequestProperty("Authorization", "Bearer $apiKey")
        if (body != null) {
            connection.doOutput = true
            connection.setRequestProperty("Content-Type", "application/json")
            connection.outputStream.use { it.write(body.toByteArray()) }
        }
        val status = connection.responseCode
        val stream = if (status >= 400) connection.errorStream else connection.inputStream
        return status to (stream?.use { it.readBytes().toString(Charsets.UTF_8) } ?: "")
    }
}
