// Look-alike of Google Play services' Task, compile-only, with the real signatures of the two
// listeners DropTrack adds. A real build uses com.google.android.gms:play-services-tasks.
package com.google.android.gms.tasks;

public abstract class Task<TResult> {
    public Task() {}

    public abstract Task<TResult> addOnSuccessListener(OnSuccessListener<? super TResult> listener);

    public abstract Task<TResult> addOnFailureListener(OnFailureListener listener);
}
