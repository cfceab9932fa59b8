import DropTrackContract
import DropTrackCore
import DropTrackEmulators
import DropTrackTesting
import Foundation
import Testing

@Suite("The simulated Android 16 phone")
struct AndroidModelTests {
    let start = Date(timeIntervalSince1970: referenceUnix)

    func message(
        _ step: DeliveryStep, courier: String = "Sam", reassigned: Bool = false, sequence: Int64,
        event: DeliveryLiveUpdate.Event? = nil, at: Date? = nil
    ) -> [String: String] {
        DeliveryLiveUpdate.encode(
            .init(
                activityId: "act-1", event: event ?? (step == .placed ? .start : step.isTerminal ? .end : .update),
                orderId: "A-1",
                state: step.contentState(courierName: courier, riderReassigned: reassigned, at: at ?? start),
                sequence: sequence))
    }

    @Test("through the seven steps: a promoted ProgressStyle notification that tracks each step, then ends")
    func sevenSteps() throws {
        let clock = ManualWallClock(start)
        let phone = AndroidLiveUpdatePhone(clock: clock)
        for step in DeliveryStep.allCases {
            clock.advance(by: 2)
            let shown = try #require(phone.receive(data: message(step, sequence: Int64(step.rawValue))))
            #expect(shown.title == step.status)
            #expect(shown.progressStyle?.shownProgress == step.rawValue)
            #expect(shown.shortCriticalText == DeliveryWidgetLogic.percentText(progress: step.progress))
            #expect(shown.subText == "Order #A-1")
            // The card says what remains, as the widget's stops line does.
            let remaining = DeliveryWidgetLogic.stopsLabel(stopsRemaining: step.stopsRemaining, progress: step.progress)
            #expect(shown.text == "Sam is delivering your order · \(remaining)")
            if step.isTerminal {
                #expect(!shown.ongoing && !shown.promoted)
                #expect(shown.notPromotedBecause == ["not ongoing (the delivery ended)"])
                #expect(shown.chip == .none)
            } else {
                #expect(shown.ongoing && shown.promoted, "\(shown.notPromotedBecause)")
                #expect(shown.chip == .text(DeliveryWidgetLogic.percentText(progress: step.progress)))
            }
        }
        #expect(phone.notifications.count == 1)
        let final = try #require(phone.notification(forActivity: "act-1"))
        #expect(final.id == AndroidLiveUpdatePhone.stableID("act-1"))
        #expect(final.progressStyle?.shownSegments.count == 7)
        #expect(final.progressStyle?.shownPoints.map(\.position) == [4, 6])
        #expect(phone.drops.isEmpty)
    }

    @Test("a reassignment changes the courier line; the ETA sets `when` only while it is in the future")
    func reassignment() throws {
        let clock = ManualWallClock(start)
        let phone = AndroidLiveUpdatePhone(clock: clock)
        phone.receive(data: message(.onTheWay, sequence: 1))
        clock.advance(by: 1)
        let shown = try #require(
            phone.receive(data: message(.onTheWay, courier: "Priya", reassigned: true, sequence: 2)))
        #expect(shown.text == "New courier: Priya · 2 stops away")
        #expect(shown.whenMillis == Int64((referenceUnix + 720) * 1000))
        clock.advance(by: 3600)
        let late = try #require(phone.receive(data: message(.nearby, sequence: 3)))
        #expect(late.whenMillis == nil && !late.showWhen)
    }

    @Test("a message without activityId is dropped with the reason; numbers that do not parse become 0")
    func malformed() throws {
        let phone = AndroidLiveUpdatePhone(clock: ManualWallClock(start))
        var data = message(.onTheWay, sequence: 1)
        data["activityId"] = nil
        #expect(phone.receive(data: data) == nil)
        #expect(phone.drops.last?.reason.contains("no activityId") == true)
        #expect(phone.drops.last?.trap == "DT-092")
        var odd = message(.onTheWay, sequence: 2)
        odd["progress"] = "seventy percent"
        odd["etaEpochMillis"] = "soon"
        let shown = try #require(phone.receive(data: odd))
        #expect(shown.progressStyle?.shownProgress == 0)
        #expect(shown.shortCriticalText == "0%")
        #expect(shown.whenMillis == nil)
    }

    @Test("updates beyond 5 per second are shed, except the one that completes the progress")
    func rateLimit() {
        let clock = ManualWallClock(start)
        let phone = AndroidLiveUpdatePhone(clock: clock)
        phone.receive(data: message(.placed, sequence: 0))
        for index in 1...8 {
            clock.advance(by: 0.05)
            phone.receive(data: message(.onTheWay, sequence: Int64(index)))
        }
        #expect(phone.drops.count == 3)
        #expect(phone.drops.allSatisfy { $0.trap == "DT-112" })
        clock.advance(by: 0.05)
        #expect(phone.receive(data: message(.delivered, sequence: 9)) != nil)
        clock.advance(by: 1.1)
        #expect(phone.receive(data: message(.nearby, sequence: 10)) != nil)
    }

    @Test("at most 50 live notifications: the 51st activity is refused")
    func cap() {
        let phone = AndroidLiveUpdatePhone(clock: ManualWallClock(start))
        for index in 0..<51 {
            var data = message(.placed, sequence: 1)
            data["activityId"] = "act-\(index)"
            phone.receive(data: data)
        }
        #expect(phone.notifications.count == 50)
        #expect(phone.drops.last?.trap == "DT-057")
    }

    @Test("each promotion rule, with its reason")
    func promotionRules() throws {
        let now = start
        let base = try #require(
            AndroidLiveUpdatePhone(clock: ManualWallClock(now)).receive(data: message(.onTheWay, sequence: 1)))
        #expect(base.promoted)
        func verdict(
            _ change: (inout LiveUpdateNotification) -> Void, settings: AndroidDeviceSettings = AndroidDeviceSettings()
        ) -> [String] {
            var notification = base
            change(&notification)
            return AndroidLiveUpdatePhone.evaluate(notification, settings: settings, now: now).notPromotedBecause
        }
        #expect(verdict { $0.requestPromotedOngoing = false }.first?.contains("not requested") == true)
        #expect(verdict { $0.ongoing = false }.first?.contains("not ongoing") == true)
        #expect(verdict { $0.title = "" } == ["no title"])
        #expect(verdict { $0.style = "media" }.first?.contains("media style cannot be promoted") == true)
        #expect(verdict { $0.style = "bigText" } == [])
        #expect(verdict { $0.isGroupSummary = true } == ["it is a group summary"])
        #expect(verdict { $0.hasCustomView = true } == ["it uses custom RemoteViews"])
        #expect(verdict { $0.colorized = true }.first?.contains("colorized") == true)
        #expect(
            verdict({ _ in }, settings: AndroidDeviceSettings(promotedPermissionGranted: false)).first?.contains(
                "POST_PROMOTED_NOTIFICATIONS") == true)
        #expect(
            verdict({ _ in }, settings: AndroidDeviceSettings(channelImportance: .min)) == [
                "the channel importance is MIN"
            ])
        #expect(
            verdict({ _ in }, settings: AndroidDeviceSettings(userAllowsLiveUpdates: false)) == [
                "the user turned Live Updates off for this app"
            ])
        let legacy = AndroidDeviceSettings(promotionRule: .android16Release)
        #expect(verdict({ _ in }, settings: legacy).first?.contains("Android 16.0") == true)
        #expect(verdict({ $0.colorized = true }, settings: legacy) == [])
        #expect(
            verdict(
                {
                    $0.style = "call"; $0.colorized = false
                }, settings: legacy) == [])
    }

    @Test(
        "the chip: short text first, then a `when` at least a minute ahead, else the icon; none while the app is open")
    func chip() throws {
        let now = start
        let base = try #require(
            AndroidLiveUpdatePhone(clock: ManualWallClock(now)).receive(data: message(.onTheWay, sequence: 1)))
        func chip(
            _ change: (inout LiveUpdateNotification) -> Void, settings: AndroidDeviceSettings = AndroidDeviceSettings()
        ) -> LiveUpdateChip {
            var notification = base
            change(&notification)
            return AndroidLiveUpdatePhone.evaluate(notification, settings: settings, now: now).chip
        }
        #expect(chip { _ in } == .text("71%"))
        #expect(chip { $0.shortCriticalText = nil } == .time("in 12 min"))
        #expect(
            chip {
                $0.shortCriticalText = nil; $0.whenMillis = Int64((referenceUnix + 30) * 1000)
            } == .iconOnly)
        #expect(
            chip {
                $0.shortCriticalText = nil; $0.usesChronometer = true
            } == .timer)
        #expect(chip({ _ in }, settings: AndroidDeviceSettings(appVisible: true)) == .none)
        #expect(chip { $0.colorized = true } == .none)
    }

    @Test("without the notification permission, or on a blocked channel, nothing shows")
    func permission() {
        let phone = AndroidLiveUpdatePhone(
            settings: AndroidDeviceSettings(notificationPermissionGranted: false), clock: ManualWallClock(start))
        #expect(phone.receive(data: message(.placed, sequence: 1)) == nil)
        #expect(phone.drops.last?.trap == "DT-106")
        let blocked = AndroidLiveUpdatePhone(
            settings: AndroidDeviceSettings(channelImportance: .none), clock: ManualWallClock(start))
        #expect(blocked.receive(data: message(.placed, sequence: 1)) == nil)
    }

    @Test("an older message overwrites a newer one unless the app checks the sequence")
    func ordering() throws {
        let phone = AndroidLiveUpdatePhone(clock: ManualWallClock(start))
        phone.receive(data: message(.nearby, sequence: 5))
        let stale = try #require(phone.receive(data: message(.pickedUp, sequence: 3)))
        #expect(stale.title == DeliveryStep.pickedUp.status)
        #expect(phone.findings.last?.trap == "DT-097")
        let careful = AndroidLiveUpdatePhone(
            settings: AndroidDeviceSettings(appChecksSequence: true), clock: ManualWallClock(start))
        careful.receive(data: message(.nearby, sequence: 5))
        #expect(careful.receive(data: message(.pickedUp, sequence: 3)) == nil)
        #expect(careful.notification(forActivity: "act-1")?.title == DeliveryStep.nearby.status)
    }

    @Test(
        "ProgressStyle limits: more than 10 segments merge into one, at most 4 points strictly inside, 100 without segments"
    )
    func progressLimits() {
        let many = ProgressStyleModel(
            segments: (0..<12).map { _ in .init(length: 5, color: "#000000") },
            points: [0, 10, 20, 30, 40, 50, 60].map { .init(position: $0, color: nil) }, progress: 70, trackerIcon: nil)
        #expect(many.shownSegments == [.init(length: 60, color: "#000000")])
        #expect(many.shownPoints.map(\.position) == [10, 20, 30, 40])
        #expect(many.shownProgress == 60)
        #expect(ProgressStyleModel(segments: [], points: [], progress: 150, trackerIcon: nil).shownProgress == 100)
    }

    @Test("DT-111: a Live Update that cannot be promoted is recorded with the reasons; the end is not")
    func notPromotable() throws {
        let clock = ManualWallClock(start)
        let phone = AndroidLiveUpdatePhone(
            settings: AndroidDeviceSettings(promotedPermissionGranted: false), clock: clock)
        let shown = try #require(phone.receive(data: message(.onTheWay, sequence: 1)))
        #expect(!shown.promoted && shown.chip == .none)
        let finding = try #require(phone.findings.last)
        #expect(finding.trap == "DT-111" && finding.activityId == "act-1")
        #expect(finding.reason.contains("POST_PROMOTED_NOTIFICATIONS"))
        #expect(phone.drops.isEmpty, "it is shown, as an ordinary notification")

        let allowed = AndroidLiveUpdatePhone(clock: clock)
        allowed.receive(data: message(.onTheWay, sequence: 1))
        allowed.receive(data: message(.delivered, sequence: 2))
        #expect(allowed.findings.isEmpty, "an ended delivery is meant to stop being a Live Update")
        allowed.receive(data: message(.nearby, sequence: 3))
        allowed.updateSettings { $0.userAllowsLiveUpdates = false }
        #expect(allowed.findings.map(\.trap) == ["DT-111"])
        #expect(allowed.findings.last?.reason.contains("turned Live Updates off") == true)
        #expect(allowed.notification(forActivity: "act-1")?.chip == LiveUpdateChip.none)
    }

    @Test("DT-112: a shed update is recorded and the card keeps the previous state")
    func shedKeepsPreviousState() throws {
        let clock = ManualWallClock(start)
        let phone = AndroidLiveUpdatePhone(clock: clock)
        phone.receive(data: message(.placed, sequence: 0))
        for index in 1...5 {
            clock.advance(by: 0.1)
            #expect(phone.receive(data: message(.onTheWay, sequence: Int64(index))) != nil)
        }
        clock.advance(by: 0.1)
        #expect(phone.receive(data: message(.nearby, sequence: 6)) == nil)
        let drop = try #require(phone.drops.last)
        #expect(drop.trap == "DT-112" && drop.activityId == "act-1")
        #expect(drop.reason.contains("per second"))
        let card = try #require(phone.notification(forActivity: "act-1"))
        #expect(card.title == DeliveryStep.onTheWay.status && card.sequence == 5)
    }

    @Test(
        "DT-113: after K high-priority messages that showed nothing, high priority arrives as normal, until the window passes"
    )
    func highPriorityDemoted() throws {
        let clock = ManualWallClock(start)
        let phone = AndroidLiveUpdatePhone(
            settings: AndroidDeviceSettings(
                deprioritizeAfterInvisibleHighPriority: 2, deprioritizationWindowSeconds: 3600),
            clock: clock)
        phone.receive(data: message(.onTheWay, sequence: 1))
        #expect(phone.userDismiss(activityId: "act-1"))
        phone.receive(data: message(.nearby, sequence: 2))
        phone.receive(data: message(.delivered, sequence: 3))
        #expect(phone.priorities.allSatisfy { $0.delivered == "high" })
        #expect(!phone.findings.contains { $0.trap == "DT-113" })

        var next = message(.placed, sequence: 1)
        next["activityId"] = "act-2"
        let shown = try #require(phone.receive(data: next), "a demoted message still shows")
        #expect(shown.title == DeliveryStep.placed.status)
        #expect(
            phone.priorities.last == AndroidMessagePriority(activityId: "act-2", original: "high", delivered: "normal"))
        let finding = try #require(phone.findings.last)
        #expect(finding.trap == "DT-113" && finding.reason.contains("delivered as normal"))
        #expect(!phone.findings.contains { $0.trap == "DT-094" }, "the server sent high; DT-094 is the server's choice")

        clock.advance(by: 3601)
        next["sequence"] = "2"
        phone.receive(data: next)
        #expect(phone.priorities.last?.delivered == "high", "the invisible messages left the window")
    }

    @Test("DT-113: when updates to a shown notification do not count as visible, they also lead to demotion")
    func updatesNotVisible() {
        let clock = ManualWallClock(start)
        let phone = AndroidLiveUpdatePhone(
            settings: AndroidDeviceSettings(deprioritizeAfterInvisibleHighPriority: 2, updatesCountAsVisible: false),
            clock: clock)
        for sequence in 1...4 {
            clock.advance(by: 2)
            phone.receive(data: message(.onTheWay, sequence: Int64(sequence)))
        }
        #expect(phone.priorities.map(\.delivered) == ["high", "high", "high", "normal"])
        #expect(phone.findings.map(\.trap) == ["DT-113"])
    }

    @Test(
        "DT-114: offline with more than 100 pending, FCM drops the backlog; the card stays stale until the next message"
    )
    func deletedMessages() throws {
        let clock = ManualWallClock(start)
        let phone = AndroidLiveUpdatePhone(clock: clock)
        phone.receive(data: message(.pickedUp, sequence: 1))
        phone.goOffline()
        for sequence in 2...102 {
            #expect(phone.receive(data: message(.onTheWay, sequence: Int64(sequence))) == nil)
        }
        #expect(phone.pendingMessages == 0, "the 101st message made FCM discard the store")
        #expect(phone.received == 1)
        clock.advance(by: 3600)
        phone.goOnline()
        let drop = try #require(phone.drops.last)
        #expect(drop.trap == "DT-114" && drop.activityId == "act-1")
        #expect(drop.reason.contains("onDeletedMessages") && drop.reason.contains("101"))
        let stale = try #require(phone.notification(forActivity: "act-1"))
        #expect(stale.staleAfterDeletedMessages && stale.title == DeliveryStep.pickedUp.status)
        let fresh = try #require(phone.receive(data: message(.nearby, sequence: 103)))
        #expect(!fresh.staleAfterDeletedMessages && fresh.title == DeliveryStep.nearby.status)
    }

    @Test("offline with a few pending messages, they arrive in order on reconnect and nothing is lost")
    func shortOffline() throws {
        let clock = ManualWallClock(start)
        let phone = AndroidLiveUpdatePhone(clock: clock)
        phone.receive(data: message(.pickedUp, sequence: 1))
        phone.goOffline()
        #expect(!phone.isOnline)
        phone.receive(data: message(.onTheWay, sequence: 2))
        phone.receive(data: message(.nearby, sequence: 3))
        #expect(phone.pendingMessages == 2 && phone.received == 1)
        clock.advance(by: 60)
        phone.goOnline()
        #expect(phone.pendingMessages == 0 && phone.received == 3)
        #expect(phone.notification(forActivity: "act-1")?.title == DeliveryStep.nearby.status)
        #expect(phone.drops.isEmpty)
    }

    @Test("DT-115: after the user dismisses the Live Update, later updates are recorded and not shown again")
    func userDismissed() throws {
        let clock = ManualWallClock(start)
        let phone = AndroidLiveUpdatePhone(clock: clock)
        phone.receive(data: message(.onTheWay, sequence: 1))
        #expect(phone.userDismiss(activityId: "act-1"))
        #expect(phone.notifications.isEmpty && phone.dismissedActivities == ["act-1"])
        clock.advance(by: 30)
        #expect(phone.receive(data: message(.nearby, sequence: 2)) == nil)
        let drop = try #require(phone.drops.last)
        #expect(drop.trap == "DT-115" && drop.activityId == "act-1")
        #expect(drop.reason.contains("the user dismissed this Live Update and the server keeps updating"))
        #expect(phone.notification(forActivity: "act-1") == nil)
        #expect(!phone.userDismiss(activityId: "act-9"), "nothing to dismiss")

        let locked = AndroidLiveUpdatePhone(settings: AndroidDeviceSettings(deviceLocked: true), clock: clock)
        locked.receive(data: message(.onTheWay, sequence: 1))
        #expect(!locked.userDismiss(activityId: "act-1"), "an ongoing notification cannot be dismissed while locked")
        #expect(locked.notifications.count == 1)
    }

    @Test("DT-115: after the user demotes the Live Update, updates show as a plain notification and are recorded")
    func userDemoted() throws {
        let clock = ManualWallClock(start)
        let phone = AndroidLiveUpdatePhone(clock: clock)
        phone.receive(data: message(.onTheWay, sequence: 1))
        #expect(phone.userDemote(activityId: "act-1"))
        #expect(phone.notification(forActivity: "act-1")?.promoted == false)
        clock.advance(by: 30)
        let shown = try #require(phone.receive(data: message(.nearby, sequence: 2)))
        #expect(!shown.promoted && shown.chip == .none && shown.title == DeliveryStep.nearby.status)
        #expect(phone.findings.map(\.trap) == ["DT-115"], "the demotion is the user's, not a DT-111 build problem")
    }
}
