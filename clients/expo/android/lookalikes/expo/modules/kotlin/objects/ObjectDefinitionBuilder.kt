// Look-alike of expo-modules-core's expo.modules.kotlin.objects.ObjectDefinitionBuilder
// (ObjectDefinitionBuilder.kt), where Function, AsyncFunction and Events are declared: typed
// lambdas whose reified parameter types tell Expo how to convert JavaScript values. Simplified:
// overloads up to three (Function) and five (AsyncFunction) parameters (the real ones go to
// eight), no Promise-taking overloads, no builder forms (`Function(name)`), no properties or
// constants, no enum events.
@file:Suppress("FunctionName", "UNUSED_PARAMETER")

package expo.modules.kotlin.objects

import expo.modules.kotlin.functions.AsyncFunctionComponent
import expo.modules.kotlin.functions.SyncFunctionComponent

open class ObjectDefinitionBuilder {
    @JvmName("FunctionWithoutArgs")
    inline fun Function(name: String, crossinline body: () -> Any?): SyncFunctionComponent = SyncFunctionComponent(name)

    inline fun <reified R> Function(name: String, crossinline body: () -> R): SyncFunctionComponent = SyncFunctionComponent(name)

    inline fun <reified R, reified P0> Function(name: String, crossinline body: (p0: P0) -> R): SyncFunctionComponent =
        SyncFunctionComponent(name)

    inline fun <reified R, reified P0, reified P1> Function(
        name: String,
        crossinline body: (p0: P0, p1: P1) -> R
    ): SyncFunctionComponent = SyncFunctionComponent(name)

    inline fun <reified R, reified P0, reified P1, reified P2> Function(
        name: String,
        crossinline body: (p0: P0, p1: P1, p2: P2) -> R
    ): SyncFunctionComponent = SyncFunctionComponent(name)

    @JvmName("AsyncFunctionWithoutArgs")
    inline fun AsyncFunction(name: String, crossinline body: () -> Any?): AsyncFunctionComponent = AsyncFunctionComponent(name)

    inline fun <reified R> AsyncFunction(name: String, crossinline body: () -> R): AsyncFunctionComponent = AsyncFunctionComponent(name)

    inline fun <reified R, reified P0> AsyncFunction(name: String, crossinline body: (p0: P0) -> R): AsyncFunctionComponent =
        AsyncFunctionComponent(name)

    inline fun <reified R, reified P0, reified P1> AsyncFunction(
        name: String,
        crossinline body: (p0: P0, p1: P1) -> R
    ): AsyncFunctionComponent = AsyncFunctionComponent(name)

    inline fun <reified R, reified P0, reified P1, reified P2> AsyncFunction(
        name: String,
        crossinline body: (p0: P0, p1: P1, p2: P2) -> R
    ): AsyncFunctionComponent = AsyncFunctionComponent(name)

    inline fun <reified R, reified P0, reified P1, reified P2, reified P3> AsyncFunction(
        name: String,
        crossinline body: (p0: P0, p1: P1, p2: P2, p3: P3) -> R
    ): AsyncFunctionComponent = AsyncFunctionComponent(name)

    inline fun <reified R, reified P0, reified P1, reified P2, reified P3, reified P4> AsyncFunction(
        name: String,
        crossinline body: (p0: P0, p1: P1, p2: P2, p3: P3, p4: P4) -> R
    ): AsyncFunctionComponent = AsyncFunctionComponent(name)

    /** The event names this module may send to JavaScript. */
    fun Events(vararg events: String) {}

    @JvmName("EventsWithArray")
    fun Events(events: Array<String>) {}
}
