import Foundation

/// A color or pattern to use when rendering a shape.
@available(iOS 13.0, *)
public protocol ShapeStyle: Sendable {}

/// A representation of a color that adapts to a given context.
@available(iOS 13.0, *)
public struct Color: Hashable, Sendable, ShapeStyle {
    package let name: String

    init(name: String) { self.name = name }

    /// Creates a constant color from red, green, and blue component values.
    public init(red: Double, green: Double, blue: Double, opacity: Double = 1) {
        name = "rgba(\(red),\(green),\(blue),\(opacity))"
    }

    /// A copy of the color with the given opacity.
    public func opacity(_ opacity: Double) -> Color { Color(name: "\(name)@\(opacity)") }

    public static let red = Color(name: "red")
    public static let orange = Color(name: "orange")
    public static let yellow = Color(name: "yellow")
    public static let green = Color(name: "green")
    public static let blue = Color(name: "blue")
    public static let gray = Color(name: "gray")
    public static let white = Color(name: "white")
    public static let black = Color(name: "black")
    public static let clear = Color(name: "clear")
    public static let primary = Color(name: "primary")
    public static let secondary = Color(name: "secondary")
}
extension Color: View { public var body: Never { lookAlikeBody() } }

@available(iOS 13.0, *)
extension ShapeStyle where Self == Color {
    public static var red: Color { .red }
    public static var orange: Color { .orange }
    public static var yellow: Color { .yellow }
    public static var green: Color { .green }
    public static var blue: Color { .blue }
    public static var gray: Color { .gray }
    public static var white: Color { .white }
    public static var black: Color { .black }
    public static var clear: Color { .clear }
}

/// A shape style that maps to one of the numbered content styles.
@available(iOS 15.0, *)
public struct HierarchicalShapeStyle: ShapeStyle {
    let level: Int
    public static let primary = HierarchicalShapeStyle(level: 0)
    public static let secondary = HierarchicalShapeStyle(level: 1)
    public static let tertiary = HierarchicalShapeStyle(level: 2)
}

@available(iOS 15.0, *)
extension ShapeStyle where Self == HierarchicalShapeStyle {
    public static var primary: HierarchicalShapeStyle { HierarchicalShapeStyle.primary }
    public static var secondary: HierarchicalShapeStyle { HierarchicalShapeStyle.secondary }
    public static var tertiary: HierarchicalShapeStyle { HierarchicalShapeStyle.tertiary }
}

/// An environment-dependent font.
@available(iOS 13.0, *)
public struct Font: Hashable, Sendable {
    package let name: String

    /// A weight to use for fonts.
    public struct Weight: Hashable, Sendable {
        let value: Int
        public static let regular = Weight(value: 400)
        public static let medium = Weight(value: 500)
        public static let semibold = Weight(value: 600)
        public static let bold = Weight(value: 700)
    }

    public static let largeTitle = Font(name: "largeTitle")
    public static let title = Font(name: "title")
    @available(iOS 14.0, *) public static let title2 = Font(name: "title2")
    @available(iOS 14.0, *) public static let title3 = Font(name: "title3")
    public static let headline = Font(name: "headline")
    public static let subheadline = Font(name: "subheadline")
    public static let body = Font(name: "body")
    public static let callout = Font(name: "callout")
    public static let footnote = Font(name: "footnote")
    public static let caption = Font(name: "caption")
    @available(iOS 14.0, *) public static let caption2 = Font(name: "caption2")

    /// Specifies a system font to use, along with the style, weight, and any design parameters.
    public static func system(size: CGFloat, weight: Font.Weight? = nil) -> Font {
        Font(name: "system(\(size),\(weight?.value ?? 400))")
    }

    /// Sets the weight of the font.
    public func weight(_ weight: Font.Weight) -> Font { Font(name: "\(name).\(weight.value)") }

    /// Adjusts the font to use monospaced digits.
    @available(iOS 15.0, *)
    public func monospacedDigit() -> Font { Font(name: "\(name).monospacedDigit") }
}

/// An enumeration to indicate one edge of a rectangle.
@available(iOS 13.0, *)
public enum Edge: Int8, CaseIterable, Sendable {
    case top, leading, bottom, trailing

    /// An efficient set of edges.
    public struct Set: OptionSet, Sendable {
        public let rawValue: Int8
        public init(rawValue: Int8) { self.rawValue = rawValue }
        public static let top = Set(rawValue: 1 << 0)
        public static let leading = Set(rawValue: 1 << 1)
        public static let bottom = Set(rawValue: 1 << 2)
        public static let trailing = Set(rawValue: 1 << 3)
        public static let all: Set = [.top, .leading, .bottom, .trailing]
        public static let horizontal: Set = [.leading, .trailing]
        public static let vertical: Set = [.top, .bottom]
    }
}

/// An alignment position along the horizontal axis.
@available(iOS 13.0, *)
public struct HorizontalAlignment: Equatable, Sendable {
    let name: String
    public static let leading = HorizontalAlignment(name: "leading")
    public static let center = HorizontalAlignment(name: "center")
    public static let trailing = HorizontalAlignment(name: "trailing")
}

/// An alignment position along the vertical axis.
@available(iOS 13.0, *)
public struct VerticalAlignment: Equatable, Sendable {
    let name: String
    public static let top = VerticalAlignment(name: "top")
    public static let center = VerticalAlignment(name: "center")
    public static let bottom = VerticalAlignment(name: "bottom")
    public static let firstTextBaseline = VerticalAlignment(name: "firstTextBaseline")
}

/// An alignment in both axes.
@available(iOS 13.0, *)
public struct Alignment: Equatable, Sendable {
    public var horizontal: HorizontalAlignment
    public var vertical: VerticalAlignment
    public init(horizontal: HorizontalAlignment, vertical: VerticalAlignment) {
        self.horizontal = horizontal
        self.vertical = vertical
    }
    public static let center = Alignment(horizontal: .center, vertical: .center)
    public static let leading = Alignment(horizontal: .leading, vertical: .center)
    public static let trailing = Alignment(horizontal: .trailing, vertical: .center)
}
