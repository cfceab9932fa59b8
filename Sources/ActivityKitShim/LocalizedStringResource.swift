// Foundation's `LocalizedStringResource`, which Apple's Foundation has (iOS 16) and Linux's does not.
// `AlertConfiguration` takes it, so the look-alike needs a type of that name; it lives here because this
// module is the only one that uses it. Simplified: a string literal only (Apple's also takes
// `String.LocalizationValue` interpolations, a table, a locale and a bundle, none of which exist on
// Linux), and no `Codable` or `CustomLocalizedStringResourceConvertible`.
import Foundation

/// A reference to a localizable string (Foundation's; see the note above for what is left out).
@available(iOS 16.0, *)
public struct LocalizedStringResource: Equatable, ExpressibleByStringLiteral {
    /// The key, which is also the untranslated text.
    public let key: String

    /// Creates a resource whose key and default value are the literal.
    public init(stringLiteral value: String) { key = value }
}

// Foundation declares the conformance from iOS 18.
@available(iOS 18.0, *)
extension LocalizedStringResource: Sendable {}
