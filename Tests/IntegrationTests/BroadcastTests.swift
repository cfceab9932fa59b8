import DropTrackContract
import DropTrackCore
import DropTrackDemo
import DropTrackDispatch
import DropTrackEmulators
import DropTrackModel
import DropTrackStore
import DropTrackTesting
import Foundation
import Synchronization
import Testing

/// The server with an iOS 18 iPhone, an iOS 17 iPhone and an Android phone, all registered for
/// user `fans` and fed by the emulators, as their apps would be.
final class MixedAudience: Sendable {
    let server: ServerHarness
    let modern: IPhoneSimulator
    let older: IPhoneSimulator
    let android = AndroidLiveUpdatePhone()
    let androidToken: String

    init() throws {
        let server = try ServerHarness()
        self.server = server
        func phone(_ device: String, os: Int) -> IPhoneSimulator {
            IPhoneSimulator(
                deviceID: device, settings: IPhoneSettings(osVersion: os),
                // The iOS 17 fans' app has started an activity itself before (its placeholder), so
                // ActivityKit hands out their push-to-start tokens.
                appRequestedBefore: true
            ) { event in
                switch event {
                case .pushToStart(let type, let token):
                    _ = try? server.registry.registerToken(
                        app: "app1", kind: .pushToStart,
                        body: .object([
                            "userId": .string("fans"), "deviceId": .string(device), "token": .string(token.wireValue),
                            "environment": .string("sandbox"), "attributesType": .string(type),
                        ]))
                case .activity(_, _, let attributes, let token):
                    _ = try? server.registry.registerToken(
                        app: "app1", kind: .activity,
                        body: .object([
                            "activityId": attributes["orderId"] ?? .null, "deviceId": .string(device),
                            "token": .string(token.wireValue), "environment": .string("sandbox"),
                        ]))
                }
            }
        }
        modern = phone("iphone-18", os: 18)
        older = phone("iphone-17", os: 17)
        androidToken = server.fcm.newToken()
        let phones = [modern, older]
        let android = self.android
        let androidToken = self.androidToken
        server.apns.emulator.addDeliveryListener { delivery in
            for phone in phones {
                if let channel = delivery.channelID, phone.channels.contains(channel) {
                    phone.receiveBroadcast(channelID: channel, payload: delivery.payload, priority: delivery.priority)
                } else if let token = delivery.token, phone.tokens.contains(token) {
                    phone.receive(token: token, payload: delivery.payload, priority: delivery.priority)
                }
            }
        }
        server.fcm.emulator.addDeliveryListener { delivery in
            if delivery.token == androidToken { android.receive(data: delivery.data, priority: delivery.priority) }
        }
        modern.registerPushToStartTokens()
        older.registerPushToStartTokens()
        _ = try server.registry.registerToken(
            app: "app1", kind: .fcm,
            body: .object([
                "userId": .string("fans"), "deviceId": .string("pixel"), "token": .string(androidToken),
            ]))
    }

    func start(_ id: String, broadcast: String) throws -> JSONValue {
        try server.registry.startActivity(
            app: "app1",
            body: server.json(
                #"{"activityId":"\#(id)","userId":"fans","attributesType":"DeliveryAttributes","attributes":{"orderId":"\#(id)"},"event":{"type":"delivery.step","data":{"step":"placed"}},"alert":{"title":"Kick-off"},"idempotencyKey":"start-\#(id)","broadcast":\#(broadcast)}"#
            )
        ).response
    }

    func step(_ id: String, _ step: String) throws {
        _ = try server.registry.applyEvent(
            app: "app1", activityId: id,
            body: server.json(#"{"type":"delivery.step","data":{"step":"\#(step)"},"terminal":"update"}"#))
        try server.drain()
    }

    func stop() { server.stop() }

    var broadcasts: [APNsEmulatorRecord] { server.apns.emulator.records(after: 0).filter { $0.kind == "broadcast" } }
}

@Suite("Broadcast channels: one push per event for iOS 18, tokens for older iPhones, FCM for Android")
struct BroadcastTests {
    @Test("a subscribed device's reported facts reach the diagnosis through the broadcast it gets (DT-048)")
    func subscriberFacts() throws {
        let audience = try MixedAudience()
        defer { audience.stop() }
        let server = audience.server
        _ = try audience.start("match-9", broadcast: #"{"storagePolicy":"no-storage"}"#)
        try server.drain()
        let subscription = try server.registry.registerToken(
            app: "app1", kind: .channelSubscription,
            body: server.json(
                #"{"activityId":"match-9","deviceId":"watcher","device":{"osVersion":"18.1","areActivitiesEnabled":false}}"#
            ))
        let diagnosis = try server.registry.diagnose(
            app: AppID(validating: "app1"), activityId: ActivityID(validating: "match-9"))
        let mine = diagnosis.findings.filter { $0.device == subscription.token.fingerprint.value }
        #expect(mine.contains { $0.trap == "DT-048" }, "\(diagnosis)")
    }

    @Test("mixed audiences in one call; a deleted channel is recreated; dismissal deletes the channel")
    func mixedAudience() throws {
        let audience = try MixedAudience()
        defer { audience.stop() }
        let server = audience.server
        let started = try audience.start("match-1", broadcast: #"{"storagePolicy":"no-storage"}"#)
        #expect(started["destinations"]?.numberValue == 3, "two push-to-start tokens and the Android phone")
        try server.drain()
        let activity = try #require(try server.store.transaction { try $0.activity(app: "app1", id: "match-1") })
        let channel = try #require(activity.channelId)
        #expect(server.apns.emulator.channelIDs.contains(channel))
        #expect(audience.modern.activities.first?.channelID == channel, "iOS 18 joined the channel")
        #expect(audience.older.activities.first?.updateToken.isEmpty == false, "iOS 17 got an update token")
        #expect(
            eventually {
                (try? server.store.transaction { try $0.tokens(app: "app1", activityId: "match-1") })?.count == 1
            })

        for step in ["confirmed", "preparing", "picked_up"] { try audience.step("match-1", step) }
        let final = try #require(try server.store.transaction { try $0.activity(app: "app1", id: "match-1") })
        #expect(audience.broadcasts.count == 3, "one broadcast request per event, whatever the audience size")
        #expect(audience.broadcasts.allSatisfy { $0.status == 200 })
        #expect(audience.modern.activities.first?.contentState == final.contentState)
        #expect(audience.older.activities.first?.contentState == final.contentState)
        #expect(audience.android.notification(forActivity: "match-1")?.title == "Picked up")
        #expect(audience.modern.drops.isEmpty && audience.older.drops.isEmpty)

        server.apns.emulator.deleteChannel(channel)
        try audience.step("match-1", "on_the_way")
        #expect(
            eventually {
                (try? server.store.transaction { try $0.activity(app: "app1", id: "match-1") })??.channelId != channel
            })
        try server.drain()
        let timeline = try server.registry.describe(app: "app1", activityId: "match-1")["timeline"]?.arrayValue ?? []
        #expect(
            timeline.contains {
                $0["reason"]?.stringValue == "ChannelNotRegistered" && $0["remedy"]?.stringValue == "recreate_channel"
            })
        #expect(timeline.contains { $0["reason"]?.stringValue == "channel_recreated" })
        let recreated = try #require(
            try server.store.transaction { try $0.activity(app: "app1", id: "match-1") }?.channelId)
        #expect(audience.broadcasts.last?.status == 200 && audience.broadcasts.last?.channelID == recreated)
        #expect(
            audience.older.activities.first?.contentState
                == (try server.store.transaction { try $0.activity(app: "app1", id: "match-1") })?.contentState,
            "token devices are unaffected")

        _ = try server.registry.endActivity(
            app: "app1", activityId: "match-1", body: server.json(#"{"dismissal":"immediate"}"#))
        try server.drain()
        let pass = server.registry.runScheduled()
        #expect(pass.dismissed == 1 && pass.channelsDeleted == 1)
        #expect(!server.apns.emulator.channelIDs.contains(recreated))
    }

    @Test(
        "bad channel ids, a nonzero expiration on a no-storage channel, and an unknown policy are refused before any send"
    )
    func badBroadcastInput() throws {
        let audience = try MixedAudience()
        defer { audience.stop() }
        for (broadcast, field) in [
            (#"{"channelId":"not base64!"}"#, "broadcast.channelId"),
            (#"{"storagePolicy":"no-storage","expiration":1796000000}"#, "broadcast.expiration"),
            (#"{"storagePolicy":"forever"}"#, "broadcast.storagePolicy"),
            (#"{"storagePolicy":"no-storage","colour":"red"}"#, "broadcast.colour"),
        ] {
            #expect {
                _ = try audience.start("bad-\(field)", broadcast: broadcast)
            } throws: { error in
                switch error as? Refusal {
                case .invalid(_, _, let at)?, .unprocessable(_, _, let at)?: at == field
                default: false
                }
            }
        }
        #expect(audience.server.apns.emulator.channelIDs.isEmpty, "no channel was created for a refused start")
        #expect(audience.server.apns.emulator.records(after: 0).isEmpty)
    }

    @Test(
        "a device registers that it subscribed: the start and GET give the channel id, its update token stops, and again is a no-op"
    )
    func channelSubscription() throws {
        let audience = try MixedAudience()
        defer { audience.stop() }
        let server = audience.server
        let started = try audience.start("match-9", broadcast: #"{"storagePolicy":"most-recent"}"#)
        try server.drain()
        let channel = try #require(
            try server.store.transaction { try $0.activity(app: "app1", id: "match-9") }?.channelId)
        #expect(started["channelId"]?.stringValue == channel)
        #expect(try server.registry.describe(app: "app1", activityId: "match-9")["channelId"]?.stringValue == channel)
        #expect(
            eventually {
                (try? server.store.transaction { try $0.tokens(app: "app1", activityId: "match-9") })?.count == 1
            }, "the iOS 17 phone registered its update token")

        func subscribe(_ activity: String) throws -> (token: TokenRecord, created: Bool) {
            try server.registry.registerToken(
                app: "app1", kind: .channelSubscription,
                body: .object(["activityId": .string(activity), "deviceId": .string("iphone-17")]))
        }
        let (subscription, created) = try subscribe("match-9")
        #expect(created && subscription.kind == .channelSubscription)
        #expect(try subscribe("match-9").created == false)
        let devices = try server.registry.describe(app: "app1", activityId: "match-9")["devices"]?.arrayValue ?? []
        #expect(
            devices.contains {
                $0["kind"]?.stringValue == "channel_subscription" && $0["deviceId"]?.stringValue == "iphone-17"
            })
        #expect(
            devices.contains {
                $0["kind"]?.stringValue == "activity" && $0["invalidReason"]?.stringValue == "subscribed_to_channel"
            })
        let next = try server.registry.applyEvent(
            app: "app1", activityId: "match-9",
            body: server.json(#"{"type":"delivery.step","data":{"step":"confirmed"}}"#))
        #expect(next["destinations"]?.numberValue == 2, "the channel and the Android phone; no update token")
        let olderToken = try #require(audience.older.activities.first?.updateToken)
        let again = try server.registry.registerToken(
            app: "app1", kind: .activity,
            body: .object([
                "activityId": .string("match-9"), "deviceId": .string("iphone-17"),
                "token": .string(olderToken.wireValue),
                "environment": .string("sandbox"),
            ]))
        #expect(
            !again.created && again.token.invalidReason == .subscribedToChannel,
            "registering it again changes nothing")
        let diagnosis = try server.registry.diagnose(
            app: AppID(validating: "app1"), activityId: ActivityID(validating: "match-9"))
        #expect(
            diagnosis.findings.contains { $0.fix.contains("broadcast channel") },
            "the diagnosis says the unused token is fine")

        _ = try server.registry.startActivity(
            app: "app1",
            body: server.json(
                #"{"activityId":"plain","userId":"fans","attributesType":"DeliveryAttributes","attributes":{"orderId":"p"},"event":{"type":"delivery.step","data":{"step":"placed"}},"alert":{"title":"Hi"},"idempotencyKey":"plain"}"#
            ))
        let refused = #expect(throws: Refusal.self) { try subscribe("plain") }
        guard case .conflict(code: .notBroadcast, _, field: "activityId")? = refused else {
            Issue.record(
                "a subscription to an activity without a channel is a not_broadcast conflict: \(String(describing: refused))"
            )
            return
        }

        _ = try server.registry.endActivity(
            app: "app1", activityId: "match-9", body: server.json(#"{"dismissal":"immediate"}"#))
        try server.drain()
        #expect(server.registry.runScheduled().dismissed >= 1)
        let ended = try server.store.transaction { try $0.channelSubscriptions(app: "app1", activityId: "match-9") }
        #expect(ended.count == 1 && ended.allSatisfy { $0.invalidReason == .activityEnded }, "\(ended)")
    }

    @Test("subscriptions of (\"a:b\", \"c\") and (\"a\", \"b:c\") are different records")
    func subscriptionNames() throws {
        let server = try ServerHarness()
        defer { server.stop() }
        func subscription(_ activity: String, _ device: String) throws -> Fingerprint {
            try server.registry.checkToken(
                app: "app1", kind: .channelSubscription,
                body: .object(["activityId": .string(activity), "deviceId": .string(device)])
            ).fingerprint
        }
        #expect(try subscription("a:b", "c") != subscription("a", "b:c"))
        #expect(try subscription("a", "b") == subscription("a", "b"))
    }

    @Test(
        "a channel the caller brings is reused and outlives its activity; the expiration asked at the start holds for every event"
    )
    func reusedChannel() throws {
        let audience = try MixedAudience()
        defer { audience.stop() }
        let server = audience.server
        _ = try audience.start("owner", broadcast: #"{"storagePolicy":"most-recent","expiration":1900000000}"#)
        try server.drain()
        let channel = try #require(
            try server.store.transaction { try $0.activity(app: "app1", id: "owner") }?.channelId)
        _ = try audience.start("guest", broadcast: #"{"storagePolicy":"most-recent","channelId":"\#(channel)"}"#)
        try server.drain()
        #expect(try server.store.transaction { try $0.activity(app: "app1", id: "guest") }?.channelId == channel)

        try audience.step("owner", "confirmed")
        try audience.step("owner", "preparing")
        let ownerBroadcasts = audience.broadcasts.filter { $0.channelID == channel }
        #expect(ownerBroadcasts.count >= 2)
        #expect(
            ownerBroadcasts.allSatisfy { $0.headers["apns-expiration"] == "1900000000" },
            "\(ownerBroadcasts.map { $0.headers["apns-expiration"] ?? "none" })")

        for id in ["guest", "owner"] {
            _ = try server.registry.endActivity(
                app: "app1", activityId: id, body: server.json(#"{"dismissal":"immediate"}"#))
            try server.drain()
            let pass = server.registry.runScheduled()
            #expect(pass.dismissed == 1)
            #expect(
                pass.channelsDeleted == (id == "owner" ? 1 : 0),
                "\(id): only the channel the server created is deleted")
            #expect(server.apns.emulator.channelIDs.contains(channel) == (id == "guest"))
        }
    }

    @Test("the broadcast benchmark's loop: one request reaches every device on the channel")
    func broadcastBench() throws {
        let figures = try BroadcastBench.run(subscribers: 300)
        #expect(figures.broadcastRequests == 1 && figures.perTokenRequests == 0)
        #expect(figures.devicesShowingState == 300)
    }
}
