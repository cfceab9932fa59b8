import DropTrackContract
import DropTrackLive
import Foundation

#if canImport(ActivityKit)
    import ActivityKit
#else
    import ActivityKitShim
#endif
#if canImport(SwiftUI)
    import SwiftUI
#else
    import SwiftUIShim
#endif
#if canImport(WidgetKit)
    import WidgetKit
#else
    import WidgetKitShim
#endif
#if canImport(AppIntents)
    import AppIntents
#else
    import AppIntentsShim
    import AppIntentsSwiftUIShim
#endif

/// The delivery Live Activity: the Lock Screen card and the Dynamic Island, for `DeliveryAttributes`.
/// The widget extension lists it in its `WidgetBundle`.
@available(iOS 16.2, *)
public struct DeliveryLiveActivity: Widget {
    public init() {}

    public var body: some WidgetConfiguration {
        ActivityConfiguration(for: DeliveryAttributes.self) { context in
            DeliveryLockScreenView(model: Self.model(context))
        } dynamicIsland: { context in
            let model = Self.model(context)
            return DynamicIsland {
                DynamicIslandExpandedRegion(.leading) {
                    VStack(alignment: .leading) {
                        Image(systemName: model.symbolName)
                            .font(.title2)
                        Text(model.courierCompact)
                            .font(.caption2)
                    }
                }
                DynamicIslandExpandedRegion(.trailing) {
                    DeliveryETAText(display: model.etaDisplay)
                        .font(.headline)
                }
                DynamicIslandExpandedRegion(.center) {
                    Text(model.status)
                        .font(.headline)
                        .lineLimit(1)
                }
                DynamicIslandExpandedRegion(.bottom) {
                    VStack(alignment: .leading, spacing: 6) {
                        DeliverySegmentsView(model: model)
                        HStack {
                            Text(model.courierLine)
                            Spacer()
                            Text(model.stopsLine)
                        }
                        .font(.caption)
                        .foregroundStyle(.secondary)
                        DeliveryActionButton(model: model)
                    }
                }
            } compactLeading: {
                Image(systemName: model.symbolName)
            } compactTrailing: {
                DeliveryETAText(display: model.etaDisplay)
                    .font(.caption)
                    .frame(width: 44)
            } minimal: {
                Image(systemName: model.symbolName)
            }
            .keylineTint(Color.brand)
        }
    }

    /// The view model for a context, at the time WidgetKit asks for the views.
    static func model(_ context: ActivityViewContext<DeliveryAttributes>) -> DeliveryActivityViewModel {
        DeliveryActivityViewModel(
            attributes: context.attributes, state: context.state, isStale: context.isStale, now: Date())
    }
}

/// The Lock Screen card (also the banner on devices without a Dynamic Island).
@available(iOS 16.2, *)
struct DeliveryLockScreenView: View {
    let model: DeliveryActivityViewModel

    var body: some View {
        VStack(alignment: .leading, spacing: 8) {
            HStack {
                Image(systemName: model.symbolName)
                Text(model.status)
                    .font(.headline)
                    .lineLimit(1)
                Spacer()
                Text(model.eta, style: .time)
                    .font(.headline)
            }
            DeliverySegmentsView(model: model)
            HStack {
                Text(model.courierLine)
                Spacer()
                Text(model.stopsLine)
            }
            .font(.caption)
            .foregroundStyle(.secondary)
            DeliveryActionButton(model: model)
            Text(model.orderLabel)
                .font(.caption2)
                .foregroundStyle(.tertiary)
            if model.isStale {
                Text("Waiting for the latest update")
                    .font(.caption2)
                    .foregroundStyle(.orange)
            }
        }
        .padding()
    }
}

/// The button of the action the card offers at this step (`DeliveryAction.offered`): on iOS 17 and
/// later, where a Live Activity's button can run an App Intent; nothing on 16.x, nor when no action is
/// offered.
@available(iOS 16.2, *)
struct DeliveryActionButton: View {
    let model: DeliveryActivityViewModel

    var body: some View {
        if let action = model.action {
            if #available(iOS 17.0, *) {
                Button(intent: DeliveryActionIntent(activityID: model.activityID, action: action)) {
                    Text(action.title)
                }
                .tint(Color.brand)
            }
        }
    }
}

/// The ETA as the phone keeps it current: a countdown that runs between updates (the card is not
/// re-rendered until the next one), or "Arrived".
@available(iOS 16.2, *)
struct DeliveryETAText: View {
    let display: DeliveryWidgetLogic.ETADisplay

    var body: some View {
        switch display {
        case .countdown(let range):
            Text(timerInterval: range, countsDown: true)
                .monospacedDigit()
        case .fixed(let line):
            Text(line)
        }
    }
}

/// The seven-segment progress bar, one segment per delivery step, and the percentage.
@available(iOS 16.2, *)
struct DeliverySegmentsView: View {
    let model: DeliveryActivityViewModel

    var body: some View {
        HStack(spacing: 3) {
            ForEach(0..<model.segmentCount, id: \.self) { index in
                (model.isLit(segment: index) ? Color.brand : Color.gray.opacity(0.3))
                    .frame(height: 4)
            }
            Text(model.percentText)
                .font(.caption2)
        }
    }
}

@available(iOS 16.2, *)
extension Color {
    /// The brand colour (`DeliveryBrand`): the extension's `DropTrackBrandColor` Info.plist entry, else
    /// DropTrack's default, the colour the Android card has too.
    static var brand: Color { brand(Bundle.main.object(forInfoDictionaryKey: DeliveryBrand.infoPlistKey)) }

    /// The colour for an Info.plist value (the look-alike tests pass one).
    static func brand(_ configured: Any?) -> Color {
        let rgb = DeliveryBrand.resolved(configured)
        return Color(red: rgb.red, green: rgb.green, blue: rgb.blue)
    }
}
