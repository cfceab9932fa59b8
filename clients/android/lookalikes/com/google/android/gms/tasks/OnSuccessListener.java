// Look-alike of play-services-tasks' OnSuccessListener (from the microG mirror).
package com.google.android.gms.tasks;

public interface OnSuccessListener<TResult> {
    void onSuccess(TResult result);
}
