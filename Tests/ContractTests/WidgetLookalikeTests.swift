import DropTrackContract
import DropTrackLive
import DropTrackWidgets
import Foundation
import Testing

#if !canImport(WidgetKit)
    import ActivityKitShim
    import SwiftUIShim
    import WidgetKitShim
#endif

/// The widget and the contract compile against ActivityKit, SwiftUI and WidgetKit (the look-alikes on
/// Linux): building this target is the main check. The tests read what the widget would show.
@Suite("Widget: the delivery Live Activity against the look-alikes")
struct WidgetLookalikeTests {
    static let now = Date(timeIntervalSinceReferenceDate: 800_000_000)
    static let state = DeliveryAttributes.ContentState(
        status: "On the way", progress: DeliveryStep.onTheWay.progress, eta: now.addingTimeInterval(11.5 * 60),
        stopsRemaining: 2, courierName: "Sam", riderReassigned: true)

    @Test("the view model shows DeliveryWidgetLogic's labels for the contract's state")
    func viewModelLabels() {
        let model = DeliveryActivityViewModel(
            attributes: DeliveryAttributes(orderId: "4711"), state: Self.state, isStale: false, now: Self.now)
        #expect(model.status == "On the way")
        #expect(model.orderLabel == "Order 4711")
        #expect(model.courierLine == "New courier: Sam")
        #expect(model.courierCompact == "Sam (new)")
        #expect(model.stopsLine == "2 stops away")
        #expect(model.percentText == "71%")
        #expect(model.etaDisplay == .countdown(Self.now...Self.state.eta))
        #expect(model.litSegments == 5 && model.segmentCount == 7)
        #expect((0..<7).map { model.isLit(segment: $0) } == [true, true, true, true, true, false, false])
        #expect(model.symbolName == "box.truck.fill")
    }

    @Test("the widget's delivered card says \"Arrived\", not \"0 min\" and \"You're next\"")
    func deliveredViewModel() {
        let state = DeliveryStep.delivered.contentState(courierName: "Sam", riderReassigned: false, at: Self.now)
        let model = DeliveryActivityViewModel(
            attributes: DeliveryAttributes(orderId: "4711"), state: state, isStale: false, now: Self.now)
        #expect(model.etaDisplay == .fixed("Arrived") && model.stopsLine == "Enjoy your order")
        #expect(model.symbolName == "checkmark.circle.fill")
    }

    @Test("once the ETA has passed, the countdown range ends where it starts, at the ETA (it reads zero)")
    func passedETA() {
        let late = DeliveryActivityViewModel(
            attributes: DeliveryAttributes(orderId: "4711"), state: Self.state, isStale: true,
            now: Self.state.eta.addingTimeInterval(300))
        #expect(late.etaDisplay == .countdown(Self.state.eta...Self.state.eta))
    }

    #if !canImport(WidgetKit)
        @Test(
            "the ETA counts down on the phone between updates: the Dynamic Island shows Text(timerInterval:) to the ETA, no minutes made at render time"
        )
        @MainActor
        func etaCountsDownOnThePhone() throws {
            let configuration = try #require(DeliveryLiveActivity().body as? ActivityConfiguration<DeliveryAttributes>)
            let context = ActivityViewContext<DeliveryAttributes>(
                attributes: DeliveryAttributes(orderId: "4711"), state: Self.state, isStale: false, activityID: "a1")
            let island = configuration.dynamicIsland(context)
            for (presentation, view) in [
                ("expanded", island.expanded()), ("compact trailing", island.compactTrailing()),
            ] {
                let shown = texts(in: view).map(\.content)
                let countdowns = shown.filter {
                    if case .timer(let range, nil, true, _) = $0 { return range.upperBound == Self.state.eta }
                    return false
                }
                #expect(countdowns.count == 1, "\(presentation) shows no countdown to the ETA: \(shown)")
                #expect(
                    !shown.contains { if case .verbatim(let line) = $0 { line.hasSuffix(" min") } else { false } },
                    "\(presentation) shows minutes made at render time, frozen until the next update: \(shown)")
            }
            let card = texts(in: configuration.lockScreen(context)).map(\.content)
            #expect(card.contains(.date(Self.state.eta, style: .time)), "the card shows the arrival time: \(card)")
        }

        @Test("the Dynamic Island fills the four expanded regions and builds every presentation")
        @MainActor
        func dynamicIslandRegions() throws {
            let configuration = try #require(DeliveryLiveActivity().body as? ActivityConfiguration<DeliveryAttributes>)
            let context = ActivityViewContext<DeliveryAttributes>(
                attributes: DeliveryAttributes(orderId: "4711"), state: Self.state, isStale: false, activityID: "a1")
            let island = configuration.dynamicIsland(context)
            #expect(island.expandedPositions() == ["leading", "trailing", "center", "bottom"])
            _ = (configuration.lockScreen(context), island.compactLeading(), island.compactTrailing(), island.minimal())
            let brand = try #require(DeliveryBrand.rgb(DeliveryBrand.defaultColor))
            #expect(island.keylineTintColor == Color(red: brand.red, green: brand.green, blue: brand.blue))
        }

        @Test(
            "the card and the expanded Dynamic Island hold the \"Got it\" button's intent for this activity once the courier is almost there, and no button before"
        )
        @MainActor
        func actionButton() throws {
            let configuration = try #require(DeliveryLiveActivity().body as? ActivityConfiguration<DeliveryAttributes>)
            func context(_ step: DeliveryStep) -> ActivityViewContext<DeliveryAttributes> {
                ActivityViewContext<DeliveryAttributes>(
                    attributes: DeliveryAttributes(orderId: "4711"),
                    state: step.contentState(courierName: "Sam", riderReassigned: false, at: Self.now),
                    isStale: false, activityID: "a1")
            }
            let nearby = context(.nearby)
            for view in [configuration.lockScreen(nearby), configuration.dynamicIsland(nearby).expanded()] {
                let held = intents(in: view)
                #expect(held.map(\.activityID) == ["4711"] && held.map(\.action) == ["confirm_receipt"])
            }
            #expect(texts(in: configuration.lockScreen(nearby)).map(\.content).contains(.verbatim("Got it")))
            let onTheWay = context(.onTheWay)
            #expect(intents(in: configuration.lockScreen(onTheWay)).isEmpty)
            #expect(intents(in: configuration.dynamicIsland(onTheWay).expanded()).isEmpty)
        }

        /// A bundle of several widgets, one behind `if #available`, as SwiftUI's builder takes them.
        struct ShopWidgets: WidgetBundle {
            var body: some Widget {
                DeliveryLiveActivity()
                DeliveryLiveActivity()
                if #available(iOS 16.2, *) {
                    DeliveryLiveActivity()
                }
            }
        }

        @Test("a widget bundle lists several widgets, and the ones behind `if #available`")
        @MainActor
        func bundleOfWidgets() {
            #expect(ShopWidgets().lookAlikeWidgets.count == 3)
            #expect(ShopWidgets().lookAlikeWidgets.allSatisfy { $0 is DeliveryLiveActivity })
        }

        @Test("the look-alike Activity: request, push token, update and end come out of its async sequences")
        func activityStreams() async throws {
            let content = ActivityContent(state: Self.state, staleDate: nil)
            let activity = try Activity.request(
                attributes: DeliveryAttributes(orderId: "4711"), content: content, pushType: .token)
            #expect(Activity<DeliveryAttributes>.activities.contains { $0.id == activity.id })
            let tokens = activity.pushTokenUpdates.makeAsyncIterator()
            let contents = activity.contentUpdates.makeAsyncIterator()
            let states = activity.activityStateUpdates.makeAsyncIterator()

            activity.simulatePushToken(Data([0xAB, 0xCD]))
            #expect(await tokens.next() == Data([0xAB, 0xCD]))
            #expect(activity.pushToken == Data([0xAB, 0xCD]))

            var delivered = Self.state
            delivered.progress = 1
            await activity.update(ActivityContent(state: delivered, staleDate: nil), alertConfiguration: nil)
            #expect(await contents.next()?.state.progress == 1)

            await activity.end(nil, dismissalPolicy: .immediate)
            #expect(await states.next() == .dismissed)
            #expect(!Activity<DeliveryAttributes>.activities.contains { $0.id == activity.id })
        }
    #endif
}
