// Look-alike of play-services-tasks' OnFailureListener (from the microG mirror).
package com.google.android.gms.tasks;

public interface OnFailureListener {
    void onFailure(Exception e);
}
