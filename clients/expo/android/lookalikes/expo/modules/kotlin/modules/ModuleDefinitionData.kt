// Look-alike of expo-modules-core's ModuleDefinitionData: opaque here (the real one holds the
// module's name, functions, events and view manager).
package expo.modules.kotlin.modules

class ModuleDefinitionData internal constructor()
