// SwiftUI's `Button`, as SwiftUI declares it (see Widgets.swift for what the look-alike simplifies): a
// Live Activity's button runs an App Intent (`Button(intent:)`, in the App Intents overlay, whose
// look-alike is AppIntentsSwiftUIShim), so the widget's view holds one.
import Foundation

/// A control that initiates an action.
@available(iOS 13.0, *)
public struct Button<Label>: View where Label: View {
    /// The button's label, for tests that read a view tree. Not isolated: SwiftUI's initializers with
    /// an intent are `nonisolated`, and a look-alike's stored properties are set once, in `init`.
    nonisolated(unsafe) package let label: Label
    /// What a tap does: the closure, or the App Intent the overlay's initializers store (for tests,
    /// and the simulated phone, that press it).
    nonisolated(unsafe) package let tap: Tap

    /// What a tap runs.
    package enum Tap {
        case action(@MainActor () -> Void)
        case intent(Any)
    }

    /// Creates a button that displays a custom label.
    @preconcurrency
    public init(action: @escaping @MainActor () -> Void, @ViewBuilder label: () -> Label) {
        self.label = label()
        tap = .action(action)
    }

    package nonisolated init(intent: Any, label: Label) {
        self.label = label
        tap = .intent(intent)
    }

    /// The label: nothing renders on Linux.
    public var body: some View { label }
}

@available(*, unavailable)
extension Button: Sendable {}
