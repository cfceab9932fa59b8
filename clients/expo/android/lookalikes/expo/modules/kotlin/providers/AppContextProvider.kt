// Look-alike of expo-modules-core's expo.modules.kotlin.providers.AppContextProvider, which Module
// implements.
package expo.modules.kotlin.providers

import expo.modules.kotlin.AppContext

interface AppContextProvider {
    val appContext: AppContext
}
