// Look-alike of expo-modules-core's expo.modules.kotlin.functions.AsyncFunctionComponent: what
// `AsyncFunction(…)` returns. Opaque here.
package expo.modules.kotlin.functions

open class AsyncFunctionComponent @PublishedApi internal constructor(val name: String)
