// `Text` and what it is made from, as SwiftUICore declares them (see View.swift for what the
// look-alike simplifies). Self-updating texts matter on a Live Activity, which is not re-rendered
// between updates: `Text(timerInterval:countsDown:)` and the `.relative`, `.offset` and `.timer` date
// styles keep counting on the phone, while a string made from `Date()` stays as it was made.
import Foundation

/// A view that displays one or more lines of read-only text.
@available(iOS 13.0, *)
public struct Text: Equatable, Sendable {
    /// What the text shows, for tests that read a view tree.
    package enum Content: Equatable, Sendable {
        case verbatim(String)
        case localized(key: String)
        case date(Date, style: Text.DateStyle)
        case dateRange(ClosedRange<Date>)
        case timer(ClosedRange<Date>, pauseTime: Date?, countsDown: Bool, showsHours: Bool)
    }
    package let content: Content
    /// The modifiers applied to the text (`font`, `fontWeight`…), by name.
    package var modifiers: [String] = []

    init(content: Content) { self.content = content }

    /// Creates a text view that displays a string literal without localization.
    public init(verbatim content: String) { self.init(content: .verbatim(content)) }

    /// Creates a text view that displays a stored string without localization.
    @_disfavoredOverload
    public init<S>(_ content: S) where S: StringProtocol { self.init(content: .verbatim(String(content))) }

    /// Creates a text view that displays localized content identified by a key.
    public init(
        _ key: LocalizedStringKey, tableName: String? = nil, bundle: Bundle? = nil, comment: StaticString? = nil
    ) {
        self.init(content: .localized(key: key.key))
    }

    func modified(_ name: String) -> Text {
        var copy = self
        copy.modifiers.append(name)
        return copy
    }
}

@available(iOS 13.0, *)
extension Text: View {
    public typealias Body = Never
}

@available(iOS 14.0, *)
extension Text {
    /// A predefined style used to display a `Date`.
    public struct DateStyle: Sendable {
        let name: String

        /// Only the time component, e.g. "11:23 PM".
        public static let time = DateStyle(name: "time")
        /// The date, e.g. "June 3, 2019".
        public static let date = DateStyle(name: "date")
        /// The date relative to now, e.g. "2 hours, 23 minutes"; it keeps counting on its own.
        public static let relative = DateStyle(name: "relative")
        /// The date as an offset from now, e.g. "+2 hours"; it keeps counting on its own.
        public static let offset = DateStyle(name: "offset")
        /// A timer counting from now, e.g. "2:32"; it keeps counting on its own.
        public static let timer = DateStyle(name: "timer")
    }

    /// Creates an instance that displays localized dates and times using a specific style.
    public init(_ date: Date, style: Text.DateStyle) { self.init(content: .date(date, style: style)) }

    /// Creates an instance that displays a localized range between two dates.
    public init(_ dates: ClosedRange<Date>) { self.init(content: .dateRange(dates)) }

    /// Creates an instance that displays a localized time interval.
    public init(_ interval: DateInterval) { self.init(content: .dateRange(interval.start...interval.end)) }
}

@available(iOS 14.0, *)
extension Text.DateStyle: Equatable {
    public static func == (lhs: Text.DateStyle, rhs: Text.DateStyle) -> Bool { lhs.name == rhs.name }
}

@available(iOS 14.0, *)
extension Text.DateStyle: Codable {
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(name)
    }

    public init(from decoder: any Decoder) throws {
        name = try decoder.singleValueContainer().decode(String.self)
    }
}

@available(iOS 16.0, *)
extension Text {
    /// A timer that counts down (or up) across `timerInterval` on its own, e.g. "12:07" then "12:06".
    public init(
        timerInterval: ClosedRange<Date>, pauseTime: Date? = nil, countsDown: Bool = true, showsHours: Bool = true
    ) {
        self.init(
            content: .timer(timerInterval, pauseTime: pauseTime, countsDown: countsDown, showsHours: showsHours))
    }
}

@available(iOS 13.0, *)
extension Text {
    /// Sets the default font for text in the view.
    nonisolated public func font(_ font: Font?) -> Text { modified("font") }

    /// Sets the font weight of the text.
    nonisolated public func fontWeight(_ weight: Font.Weight?) -> Text { modified("fontWeight") }
}

@available(iOS 15.0, *)
extension Text {
    /// Modifies the text view's font to use fixed-width digits.
    nonisolated public func monospacedDigit() -> Text { modified("monospacedDigit") }
}

@available(iOS 17.0, *)
extension Text {
    /// Sets the style of the text displayed by this view.
    nonisolated public func foregroundStyle<S>(_ style: S) -> Text where S: ShapeStyle { modified("foregroundStyle") }
}

/// The key for a localized string resource to use when displaying a string literal in a `Text`.
@available(iOS 13.0, *)
public struct LocalizedStringKey: Equatable, ExpressibleByStringInterpolation {
    let key: String

    /// Creates a localized string key from the given string value.
    public init(_ value: String) { key = value }

    /// Creates a localized string key from the given string literal.
    public init(stringLiteral value: String) { key = value }

    /// Creates a localized string key from the given string interpolation.
    public init(stringInterpolation: LocalizedStringKey.StringInterpolation) { key = stringInterpolation.key }

    /// Builds the key from literal parts and interpolated strings.
    public struct StringInterpolation: StringInterpolationProtocol {
        var key = ""

        public init(literalCapacity: Int, interpolationCount: Int) {}

        /// Appends a literal string segment.
        public mutating func appendLiteral(_ literal: String) { key += literal }

        /// Appends a string (`%@` in the key).
        public mutating func appendInterpolation(_ string: String) { key += "%@" }
    }
}

@available(*, unavailable)
extension LocalizedStringKey: Sendable {}

@available(*, unavailable)
extension LocalizedStringKey.StringInterpolation: Sendable {}
