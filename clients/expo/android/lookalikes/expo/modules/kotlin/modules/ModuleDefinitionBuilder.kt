// Look-alike of expo-modules-core's ModuleDefinitionBuilder (ModuleDefinitionBuilder.kt): the
// module-level DSL on top of ObjectDefinitionBuilder's functions and events. Simplified: the view,
// activity-result and class (SharedObject) definitions are absent.
@file:Suppress("FunctionName", "UNUSED_PARAMETER")

package expo.modules.kotlin.modules

import expo.modules.kotlin.objects.ObjectDefinitionBuilder

class ModuleDefinitionBuilder(@PublishedApi internal val module: Module? = null) : ObjectDefinitionBuilder() {
    fun buildModule(): ModuleDefinitionData = ModuleDefinitionData()

    /** The name JavaScript's `requireNativeModule` finds the module by. */
    fun Name(name: String) {}

    /** Called right after the module is created. */
    inline fun OnCreate(crossinline body: () -> Unit) {}

    /** Called when the module is about to be deallocated. */
    inline fun OnDestroy(crossinline body: () -> Unit) {}

    inline fun OnActivityEntersForeground(crossinline body: () -> Unit) {}

    inline fun OnActivityEntersBackground(crossinline body: () -> Unit) {}
}
