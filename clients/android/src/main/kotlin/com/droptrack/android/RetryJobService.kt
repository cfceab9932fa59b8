package com.droptrack.android

import android.app.job.JobInfo
import android.app.job.JobParameters
import android.app.job.JobScheduler
import android.app.job.JobService
import android.content.ComponentName
import android.content.Context
import kotlin.concurrent.thread

/**
 * Sends the work still owed to the server (a token, lifecycle reports) when it is due, in a process
 * of its own if need be: a job with network, persisted across reboots, scheduled for the time the
 * queue's next piece is due and replaced each time the queue changes.
 */
class RetryJobService : JobService() {
    override fun onStartJob(params: JobParameters): Boolean {
        val app = applicationContext
        thread(name = "droptrack-retry") {
            val next = DropTrack.sync(app).flush()
            jobFinished(params, false)
            schedule(app, next)
        }
        return true
    }

    // The work is queued, not lost: the next job (or the app's next start) sends it.
    override fun onStopJob(params: JobParameters): Boolean = true

    companion object {
        /** The job's id in this app's JobScheduler; an app using it for its own jobs must pick others. */
        const val JOB_ID = 0x44540001

        fun schedule(context: Context, nextDueMillis: Long?) {
            val scheduler = context.getSystemService(JobScheduler::class.java) ?: return
            if (nextDueMillis == null) return scheduler.cancel(JOB_ID)
            val delay = Math.max(0L, nextDueMillis - System.currentTimeMillis())
            scheduler.schedule(
                JobInfo.Builder(JOB_ID, ComponentName(context, RetryJobService::class.java))
                    .setMinimumLatency(delay)
                    .setRequiredNetworkType(JobInfo.NETWORK_TYPE_ANY)
                    .setPersisted(true)
                    .build()
            )
        }
    }
}
