// Look-alike of expo-modules-core's expo.modules.kotlin.modules.Module (expo/expo,
// packages/expo-modules-core/android/src/main/java/expo/modules/kotlin/modules/Module.kt).
// Simplified: no `coroutineScope` (it needs kotlinx.coroutines, which DropTrack does not use).
package expo.modules.kotlin.modules

import android.os.Bundle
import expo.modules.kotlin.AppContext
import expo.modules.kotlin.providers.AppContextProvider

abstract class Module : AppContextProvider {
    override val appContext: AppContext
        get() = throw droptrack.lookalike.Absent.here()

    fun sendEvent(name: String, body: Bundle? = Bundle.EMPTY) {
        throw droptrack.lookalike.Absent.here()
    }

    fun sendEvent(name: String, body: Map<String, Any?>?) {
        throw droptrack.lookalike.Absent.here()
    }

    abstract fun definition(): ModuleDefinitionData
}

/** Builds the module's definition: `override fun definition() = ModuleDefinition { … }`. */
@Suppress("FunctionName")
inline fun Module.ModuleDefinition(block: ModuleDefinitionBuilder.() -> Unit): ModuleDefinitionData {
    return ModuleDefinitionBuilder(this).also(block).buildModule()
}
