// Look-alike of expo-modules-core's Android AppContext, compile-only: the one member the module
// uses, with its real signature (from Expo's Module API reference). A real build uses the package.
package expo.modules.kotlin

import android.content.Context

class AppContext {
    val reactContext: Context?
        get() = throw UnsupportedOperationException("look-alike")
}
