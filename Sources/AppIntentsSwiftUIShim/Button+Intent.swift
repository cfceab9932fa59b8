// A look-alike of the part of Apple's App Intents overlay for SwiftUI (`_AppIntents_SwiftUI`, which an
// app gets by importing both SwiftUI and AppIntents) that an interactive Live Activity uses: a button
// that runs an App Intent. For Linux only, like the other look-alikes: sources import SwiftUI and
// AppIntents where they exist, and this only in their absence.
//
// The declarations were written from the iOS 26.2 SDK's _AppIntents_SwiftUI.swiftinterface;
// checks/lookalike_api.py lists them (Tests/LookalikeAPI/_AppIntents_SwiftUI.api) and compares them
// with Apple's file. Simplified: nothing renders, and nothing runs the intent on a tap; the button
// keeps it, so a test or the simulated phone can press it.
import AppIntentsShim
import SwiftUICoreShim
import SwiftUIShim

@available(iOS 17.0, *)
extension Button {
    /// Creates a button that performs an App Intent.
    public nonisolated init<I>(intent: I, @ViewBuilder label: () -> Label) where I: AppIntent {
        self.init(intent: intent as Any, label: label())
    }
}

@available(iOS 17.0, *)
extension Button where Label == Text {
    /// Creates a button with a text label that performs an App Intent.
    @_disfavoredOverload
    public nonisolated init<S>(_ title: S, intent: some AppIntent) where S: StringProtocol {
        self.init(intent: intent as Any, label: Text(title))
    }
}
