package com.droptrack.android.core

import org.junit.Assert.assertEquals
import org.junit.Assert.assertFalse
import org.junit.Assert.assertNull
import org.junit.Assert.assertTrue
import org.junit.Test

/** A stand-in for the service that owns the forwarding (a Context on a phone). */
open class FakeService

/** A stand-in for expo-notifications' FirebaseMessagingDelegate: made with the service, then called. */
class FakeDelegate(val owner: FakeService) {
    val calls = ArrayList<String>()

    fun onMessageReceived(message: String) {
        calls.add("message:$message")
    }

    fun onNewToken(token: String) {
        calls.add("token:$token")
    }

    fun onDeletedMessages() {
        calls.add("deleted")
    }
}

/** FCM callbacks that are not DropTrack's reach the other library's handler, found by name. */
class MessageForwardingTests {
    private val logged = ArrayList<String>()

    @Test
    fun theHandlerIsMadeWithTheServiceAndReceivesEachCallback() {
        val forwarding = MessageForwarding(FakeDelegate::class.java.name) { logged.add(it) }
        val service = object : FakeService() {}
        val target = forwarding.target(service) as FakeDelegate
        assertTrue(target.owner === service)
        assertTrue(forwarding.call(target, "onMessageReceived", "sale"))
        assertTrue(forwarding.call(target, "onNewToken", "tok"))
        assertTrue(forwarding.call(target, "onDeletedMessages"))
        assertEquals(listOf("message:sale", "token:tok", "deleted"), target.calls)
        assertEquals(emptyList<String>(), logged)
    }

    @Test
    fun anAbsentLibraryMeansNothingToForwardTo() {
        assertNull(MessageForwarding("expo.modules.notifications.NotInThisApp").target(FakeService()))
    }

    @Test
    fun aHandlerWithoutTheCallbackIsLoggedNotCalled() {
        val forwarding = MessageForwarding(FakeDelegate::class.java.name) { logged.add(it) }
        val target = forwarding.target(FakeService())!!
        assertFalse(forwarding.call(target, "onMessageSent", "id"))
        assertTrue(logged.single().contains("onMessageSent"))
    }

    @Test
    fun aHandlerThatCannotBeMadeWithTheServiceIsLogged() {
        val forwarding = MessageForwarding(FakeDelegate::class.java.name) { logged.add(it) }
        assertNull(forwarding.target("not a service"))
        assertTrue(logged.single().contains("no constructor"))
    }

    @Test
    fun expoNotificationsIsTheDefaultTarget() {
        assertEquals("expo.modules.notifications.service.delegates.FirebaseMessagingDelegate", MessageForwarding.EXPO_NOTIFICATIONS)
    }
}
