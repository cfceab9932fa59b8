// Look-alike of android.app.job.JobService (API 21), from the Android API reference: onStartJob runs
// on the main thread; returning true says work goes on elsewhere until jobFinished.
package android.app.job;

public abstract class JobService extends android.app.Service {
    public JobService() {}

    @Override
    public final android.os.IBinder onBind(android.content.Intent intent) { throw droptrack.lookalike.Absent.here(); }

    public abstract boolean onStartJob(JobParameters params);

    public abstract boolean onStopJob(JobParameters params);

    public final void jobFinished(JobParameters params, boolean wantsReschedule) { throw droptrack.lookalike.Absent.here(); }
}
