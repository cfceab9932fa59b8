// Look-alike of android.app.job.JobInfo, compile-only, written from the Android API reference
// (API 21; android.txt's section was not paged in): a one-off job with a delay and a network,
// persisted across reboots (which needs RECEIVE_BOOT_COMPLETED in the manifest).
package android.app.job;

import androidx.annotation.NonNull;

public class JobInfo {
    JobInfo() {}

    public static final int NETWORK_TYPE_ANY = 1;

    public static final class Builder {
        public Builder(int jobId, @NonNull android.content.ComponentName jobService) { throw droptrack.lookalike.Absent.here(); }

        public JobInfo build() { throw droptrack.lookalike.Absent.here(); }

        public Builder setMinimumLatency(long minLatencyMillis) { throw droptrack.lookalike.Absent.here(); }

        public Builder setPersisted(boolean isPersisted) { throw droptrack.lookalike.Absent.here(); }

        public Builder setRequiredNetworkType(int networkType) { throw droptrack.lookalike.Absent.here(); }
    }
}
