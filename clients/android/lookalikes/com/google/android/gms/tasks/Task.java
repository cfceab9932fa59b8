// Look-alike of com.google.android.gms.tasks.Task (play-services-tasks, closed source; signatures
// from the microG mirror, microg/GmsCore play-services-tasks/.../Task.java). Simplified: the
// Activity/Executor listener overloads and continuations are absent.
package com.google.android.gms.tasks;

public abstract class Task<TResult> {
    public Task() {}

    public Task<TResult> addOnCompleteListener(OnCompleteListener<TResult> listener) { throw droptrack.lookalike.Absent.here(); }

    public abstract Task<TResult> addOnFailureListener(OnFailureListener listener);

    public abstract Task<TResult> addOnSuccessListener(OnSuccessListener<? super TResult> listener);

    public abstract Exception getException();

    public abstract TResult getResult();

    public abstract boolean isSuccessful();
}
