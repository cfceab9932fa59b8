// Look-alike of expo-modules-core's expo.modules.kotlin.AppContext (expo/expo,
// packages/expo-modules-core/android/src/main/java/expo/modules/kotlin/AppContext.kt): the three
// properties DropTrack's module reads, with their real types. Simplified: a class with nothing
// else (the real one holds the module registry, the JS runtime and the legacy modules).
package expo.modules.kotlin

import android.app.Activity
import android.content.Context
import expo.modules.interfaces.permissions.Permissions

class AppContext {
    /** The React application context; null once React is gone. */
    val reactContext: Context?
        get() = throw droptrack.lookalike.Absent.here()

    /** The current Activity, from `CurrentActivityProvider`; null in the background. */
    val currentActivity: Activity?
        get() = throw droptrack.lookalike.Absent.here()

    /** The permissions manager from the legacy module registry; null when expo-modules-core's is not linked. */
    val permissions: Permissions?
        get() = throw droptrack.lookalike.Absent.here()
}
