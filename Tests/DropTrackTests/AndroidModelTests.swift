import DropTrackContract
import DropTrackCore
import DropTrackEmulators
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
            #expect(shown.text == "Sam is delivering your order")
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
        #expect(shown.text == "New courier: Priya")
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
}
