// Look-alike of expo-modules-core's Android module API, compile-only: `Module`, the
// `ModuleDefinition` builder and the DSL the module uses (Name, Events, Function, AsyncFunction),
// with the real shapes from Expo's Module API reference: typed lambdas whose parameter types
// (reified) tell Expo how to convert JavaScript values. A real build uses expo-modules-core.
package expo.modules.kotlin.modules

import expo.modules.kotlin.AppContext

abstract class Module {
    val appContext: AppContext
        get() = throw UnsupportedOperationException("look-alike")

    fun sendEvent(name: String, body: Map<String, Any?>? = null) {
        throw UnsupportedOperationException("look-alike")
    }

    abstract fun definition(): ModuleDefinitionData
}

class ModuleDefinitionData

class SyncFunctionComponent
class AsyncFunctionComponent

@Suppress("FunctionName", "UNUSED_PARAMETER")
class ModuleDefinitionBuilder(val module: Module?) {
    fun Name(name: String) {}

    fun Events(vararg events: String) {}

    inline fun <reified R> Function(name: String, crossinline body: () -> R): SyncFunctionComponent =
        SyncFunctionComponent()

    inline fun <reified R, reified P0> Function(name: String, crossinline body: (p0: P0) -> R): SyncFunctionComponent =
        SyncFunctionComponent()

    inline fun <reified R> AsyncFunction(name: String, crossinline body: () -> R): AsyncFunctionComponent =
        AsyncFunctionComponent()

    inline fun <reified R, reified P0> AsyncFunction(name: String, crossinline body: (p0: P0) -> R): AsyncFunctionComponent =
        AsyncFunctionComponent()

    inline fun <reified R, reified P0, reified P1> AsyncFunction(
        name: String, crossinline body: (p0: P0, p1: P1) -> R
    ): AsyncFunctionComponent = AsyncFunctionComponent()

    inline fun <reified R, reified P0, reified P1, reified P2> AsyncFunction(
        name: String, crossinline body: (p0: P0, p1: P1, p2: P2) -> R
    ): AsyncFunctionComponent = AsyncFunctionComponent()

    inline fun <reified R, reified P0, reified P1, reified P2, reified P3> AsyncFunction(
        name: String, crossinline body: (p0: P0, p1: P1, p2: P2, p3: P3) -> R
    ): AsyncFunctionComponent = AsyncFunctionComponent()

    fun buildModule(): ModuleDefinitionData = ModuleDefinitionData()
}

@Suppress("FunctionName")
inline fun Module.ModuleDefinition(block: ModuleDefinitionBuilder.() -> Unit): ModuleDefinitionData =
    ModuleDefinitionBuilder(this).also(block).buildModule()
