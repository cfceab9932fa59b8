// Look-alike (compile-only) of Google Play services' success callback.
package com.google.android.gms.tasks;

public interface OnSuccessListener<TResult> {
    void onSuccess(TResult result);
}
