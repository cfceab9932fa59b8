// Look-alike of android.app.job.JobParameters (API 21), from the Android API reference: what a
// JobService is handed and hands back to jobFinished.
package android.app.job;

public class JobParameters {
    JobParameters() {}

    public int getJobId() { throw droptrack.lookalike.Absent.here(); }
}
