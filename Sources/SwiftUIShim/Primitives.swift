import Foundation

/// A view that displays one or more lines of read-only text.
@available(iOS 13.0, *)
public struct Text: Equatable, Sendable {
    /// What the text shows, for checks that read a view tree.
    package let content: String

    /// Creates a text view that displays a string without localization.
    public init(verbatim content: String) { self.content = content }

    /// Creates a text view that displays a stored string without localization.
    public init<S>(_ content: S) where S: StringProtocol { self.content = String(content) }

    /// Predefined styles for displaying a date.
    public struct DateStyle: Equatable, Sendable {
        let name: String
        /// A style displaying only the time component.
        public static let time = DateStyle(name: "time")
        /// A style displaying a date.
        public static let date = DateStyle(name: "date")
        /// A style displaying a date as relative to now.
        public static let relative = DateStyle(name: "relative")
        /// A style displaying a date as offset from now.
        public static let offset = DateStyle(name: "offset")
        /// A style displaying a date as timer counting from now.
        public static let timer = DateStyle(name: "timer")
    }

    /// Creates an instance that displays localized dates and times using a specific style.
    public init(_ date: Date, style: Text.DateStyle) {
        content = "\(style.name):\(date.timeIntervalSinceReferenceDate)"
    }
}
extension Text: View { public var body: Never { lookAlikeBody() } }

/// A view that arranges its subviews in a horizontal line.
@available(iOS 13.0, *)
public struct HStack<Content> where Content: View {
    let content: Content
    /// Creates a horizontal stack with the given spacing and vertical alignment.
    public init(alignment: VerticalAlignment = .center, spacing: CGFloat? = nil, @ViewBuilder content: () -> Content) {
        self.content = content()
    }
}
extension HStack: View { public var body: Never { lookAlikeBody() } }

/// A view that arranges its subviews in a vertical line.
@available(iOS 13.0, *)
public struct VStack<Content> where Content: View {
    let content: Content
    /// Creates an instance with the given spacing and horizontal alignment.
    public init(
        alignment: HorizontalAlignment = .center, spacing: CGFloat? = nil, @ViewBuilder content: () -> Content
    ) {
        self.content = content()
    }
}
extension VStack: View { public var body: Never { lookAlikeBody() } }

/// A flexible space that expands along the major axis of its containing stack layout.
@available(iOS 13.0, *)
public struct Spacer: Sendable {
    public var minLength: CGFloat?
    public init(minLength: CGFloat? = nil) { self.minLength = minLength }
}
extension Spacer: View { public var body: Never { lookAlikeBody() } }

/// A view that displays an image.
@available(iOS 13.0, *)
public struct Image: Equatable, Sendable {
    package let systemName: String
    /// Creates a system symbol image.
    public init(systemName: String) { self.systemName = systemName }
}
extension Image: View { public var body: Never { lookAlikeBody() } }

/// A view that shows the progress toward completion of a task.
@available(iOS 14.0, *)
public struct ProgressView<Label, CurrentValueLabel> where Label: View, CurrentValueLabel: View {
    package let fractionCompleted: Double?
}
extension ProgressView: View { public var body: Never { lookAlikeBody() } }

@available(iOS 14.0, *)
extension ProgressView {
    /// Creates a progress view for showing determinate progress.
    public init<V>(value: V?, total: V = 1.0)
    where Label == EmptyView, CurrentValueLabel == EmptyView, V: BinaryFloatingPoint {
        fractionCompleted = value.map { total > 0 ? Double($0 / total) : 0 }
    }
}

/// A structure that computes views on demand from an underlying collection of identified data.
@available(iOS 13.0, *)
public struct ForEach<Data, ID, Content> where Data: RandomAccessCollection, ID: Hashable {
    public var data: Data
    public var content: (Data.Element) -> Content
}
extension ForEach: View where Content: View { public var body: Never { lookAlikeBody() } }

@available(iOS 13.0, *)
extension ForEach where Content: View {
    /// Creates an instance that computes views on demand over a collection, identified by a key path.
    public init(_ data: Data, id: KeyPath<Data.Element, ID>, @ViewBuilder content: @escaping (Data.Element) -> Content)
    {
        self.data = data
        self.content = content
    }
}

@available(iOS 13.0, *)
extension ForEach where Data == Range<Int>, ID == Int, Content: View {
    /// Creates an instance that computes views on demand over a constant range.
    public init(_ data: Range<Int>, @ViewBuilder content: @escaping (Int) -> Content) {
        self.data = data
        self.content = content
    }
}
