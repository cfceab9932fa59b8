// Look-alike (compile-only) of Google Play services' failure callback.
package com.google.android.gms.tasks;

public interface OnFailureListener {
    void onFailure(Exception e);
}
