// Look-alike of play-services-tasks' OnCompleteListener (from the microG mirror).
package com.google.android.gms.tasks;

public interface OnCompleteListener<TResult> {
    void onComplete(Task<TResult> task);
}
