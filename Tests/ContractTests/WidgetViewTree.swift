// Reads a view tree made with the look-alikes: the texts it shows, through composite views' bodies and
// the look-alikes' records of primitives, stacks and modifiers. Linux only: SwiftUI has no such records.
#if !canImport(SwiftUI)
    import DropTrackLive
    import SwiftUIShim

    /// Every `Text` in `view`, in order.
    @MainActor
    func texts(in view: Any) -> [Text] {
        if let text = view as? Text { return [text] }
        if let composite = view as? any View, let body = compositeBody(composite) { return texts(in: body) }
        return Mirror(reflecting: view).children.flatMap { texts(in: $0.value) }
    }

    /// Every `DeliveryActionIntent` a button in `view` holds (`Button(intent:)` keeps it with the button).
    @MainActor
    func intents(in view: Any) -> [DeliveryActionIntent] {
        if let intent = view as? DeliveryActionIntent { return [intent] }
        var found = Mirror(reflecting: view).children.flatMap { intents(in: $0.value) }
        if let composite = view as? any View, let body = compositeBody(composite) { found += intents(in: body) }
        return found
    }

    /// A view's body, unless it is a primitive (whose body the look-alike cannot give).
    @MainActor
    private func compositeBody<V: View>(_ view: V) -> (any View)? {
        V.Body.self == Never.self ? nil : view.body
    }
#endif
