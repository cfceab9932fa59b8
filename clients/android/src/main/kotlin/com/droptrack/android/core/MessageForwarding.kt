package com.droptrack.android.core

/**
 * Hands FCM callbacks that are not DropTrack's to another library's handler, found by class name
 * at run time so that DropTrack does not depend on it: Android delivers FCM to one service only,
 * and when DropTrack's is that one, expo-notifications' pushes and tokens must still reach it.
 *
 * The target is made with its one-argument constructor taking the service (a Context), as
 * expo-notifications' `FirebaseMessagingDelegate(context)` is; a missing class means nothing to
 * forward to. Reflection keeps this file free of Android types, so it is tested on the JVM.
 */
class MessageForwarding(private val className: String, private val log: (String) -> Unit = {}) {
    /** The handler for [owner], or null when the class is not in the app. */
    fun target(owner: Any): Any? {
        val type = try {
            Class.forName(className)
        } catch (absent: ClassNotFoundException) {
            return null
        }
        val constructor = type.constructors.firstOrNull { it.parameterTypes.size == 1 && it.parameterTypes[0].isInstance(owner) }
        if (constructor == null) {
            log("DropTrack: $className has no constructor taking ${owner.javaClass.simpleName}; FCM callbacks are not forwarded")
            return null
        }
        return constructor.newInstance(owner)
    }

    /** Calls [method] on [target] with [arguments]; false, logged, when it has no such method. */
    fun call(target: Any, method: String, vararg arguments: Any?): Boolean {
        val found = target.javaClass.methods.firstOrNull { candidate ->
            candidate.name == method && candidate.parameterTypes.size == arguments.size &&
                candidate.parameterTypes.indices.all { i -> arguments[i] == null || boxed(candidate.parameterTypes[i]).isInstance(arguments[i]) }
        }
        if (found == null) {
            log("DropTrack: $className has no $method(${arguments.size} arguments); that FCM callback is not forwarded")
            return false
        }
        try {
            found.invoke(target, *arguments)
        } catch (failure: java.lang.reflect.InvocationTargetException) {
            throw failure.targetException
        }
        return true
    }

    private fun boxed(type: Class<*>): Class<*> = if (type.isPrimitive) (java.lang.reflect.Array.get(java.lang.reflect.Array.newInstance(type, 1), 0)).javaClass else type

    companion object {
        /** expo-notifications' handler behind its FirebaseMessagingService. */
        const val EXPO_NOTIFICATIONS = "expo.modules.notifications.service.delegates.FirebaseMessagingDelegate"
    }
}
