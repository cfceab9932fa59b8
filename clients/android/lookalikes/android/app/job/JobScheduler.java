// Look-alike of android.app.job.JobScheduler (API 21), from the Android API reference (android.txt's
// section was not paged in): schedule replaces a pending job with the same id.
package android.app.job;

import androidx.annotation.NonNull;

public abstract class JobScheduler {
    public JobScheduler() {}

    public static final int RESULT_SUCCESS = 1;

    public abstract int schedule(@NonNull JobInfo job);

    public abstract void cancel(int jobId);
}
