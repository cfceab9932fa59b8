// Look-alike of expo-modules-core's expo.modules.kotlin.functions.SyncFunctionComponent: what
// `Function(…)` returns. Opaque here.
package expo.modules.kotlin.functions

class SyncFunctionComponent @PublishedApi internal constructor(val name: String)
