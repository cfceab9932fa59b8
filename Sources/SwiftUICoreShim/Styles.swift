// Colors, shape styles, fonts, edges and alignments, as SwiftUICore declares them (see View.swift for
// what the look-alike simplifies).
import Foundation

/// A color or pattern to use when rendering a shape (SwiftUI's rendering requirements are left out).
@available(iOS 13.0, *)
public protocol ShapeStyle: Sendable {}

/// A representation of a color that adapts to a given context.
@available(iOS 13.0, *)
public struct Color: Hashable, CustomStringConvertible, Sendable {
    let name: String

    /// A textual representation of the color.
    public var description: String { name }

    /// A context-dependent red color.
    public static let red = Color(name: "red")
    /// A context-dependent orange color.
    public static let orange = Color(name: "orange")
    /// A context-dependent yellow color.
    public static let yellow = Color(name: "yellow")
    /// A context-dependent green color.
    public static let green = Color(name: "green")
    /// A context-dependent blue color.
    public static let blue = Color(name: "blue")
    /// A context-dependent gray color.
    public static let gray = Color(name: "gray")
    /// A white color suitable for use in UI elements.
    public static let white = Color(name: "white")
    /// A black color suitable for use in UI elements.
    public static let black = Color(name: "black")
    /// A clear color suitable for use in UI elements.
    public static let clear = Color(name: "clear")
    /// The color to use for primary content.
    public static let primary = Color(name: "primary")
    /// The color to use for secondary content.
    public static let secondary = Color(name: "secondary")

    /// Multiplies the opacity of the color by the given amount.
    public func opacity(_ opacity: Double) -> Color { Color(name: "\(name)@\(opacity)") }

    /// A profile that specifies how to interpret a color value for display.
    public enum RGBColorSpace: Hashable, Sendable {
        /// The extended red, green, blue (sRGB) color space.
        case sRGB
        /// The extended sRGB color space with a linear transfer function.
        case sRGBLinear
        /// The Display P3 color space.
        case displayP3
    }

    /// Creates a constant color from red, green, and blue component values (0 to 1), named here by
    /// its components so tests can compare it.
    public init(
        _ colorSpace: Color.RGBColorSpace = .sRGB, red: Double, green: Double, blue: Double, opacity: Double = 1
    ) {
        name = "rgb(\(red), \(green), \(blue), \(opacity))"
    }

    init(name: String) { self.name = name }
}

@available(iOS 13.0, *)
extension Color: View {
    public typealias Body = Never
}

@available(iOS 13.0, *)
extension Color: ShapeStyle {}

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

    /// A shape style that maps to the first level of the current content style.
    public static let primary = HierarchicalShapeStyle(level: 0)
    /// A shape style that maps to the second level of the current content style.
    public static let secondary = HierarchicalShapeStyle(level: 1)
    /// A shape style that maps to the third level of the current content style.
    public static let tertiary = HierarchicalShapeStyle(level: 2)
    /// A shape style that maps to the fourth level of the current content style.
    public static let quaternary = HierarchicalShapeStyle(level: 3)
}

@available(iOS 15.0, *)
extension ShapeStyle where Self == HierarchicalShapeStyle {
    public static var primary: HierarchicalShapeStyle { .primary }
    public static var secondary: HierarchicalShapeStyle { .secondary }
    public static var tertiary: HierarchicalShapeStyle { .tertiary }
    public static var quaternary: HierarchicalShapeStyle { .quaternary }
}

/// An environment-dependent font.
@available(iOS 13.0, *)
public struct Font: Hashable, Sendable {
    let name: String

    /// A font with the large title text style.
    public static let largeTitle = Font(name: "largeTitle")
    /// A font with the title text style.
    public static let title = Font(name: "title")
    /// A font with the headline text style.
    public static let headline = Font(name: "headline")
    /// A font with the subheadline text style.
    public static let subheadline = Font(name: "subheadline")
    /// A font with the body text style.
    public static let body = Font(name: "body")
    /// A font with the callout text style.
    public static let callout = Font(name: "callout")
    /// A font with the footnote text style.
    public static let footnote = Font(name: "footnote")
    /// A font with the caption text style.
    public static let caption = Font(name: "caption")

    /// Adds a weight to the font.
    public func weight(_ weight: Font.Weight) -> Font { Font(name: "\(name).\(weight.value)") }

    /// Returns a modified font that uses fixed-width digits.
    public func monospacedDigit() -> Font { Font(name: "\(name).monospacedDigit") }

    /// A weight to use for fonts.
    public struct Weight: Hashable {
        let value: Int
        public static let ultraLight = Weight(value: 100)
        public static let thin = Weight(value: 200)
        public static let light = Weight(value: 300)
        public static let regular = Weight(value: 400)
        public static let medium = Weight(value: 500)
        public static let semibold = Weight(value: 600)
        public static let bold = Weight(value: 700)
        public static let heavy = Weight(value: 800)
        public static let black = Weight(value: 900)
    }

    /// A design to use for fonts.
    public enum Design: Hashable, Sendable {
        case `default`
        case serif
        case rounded
        case monospaced
    }
}

@available(iOS 13.0, *)
extension Font.Weight: Sendable {}

@available(iOS 14.0, *)
extension Font {
    /// A font with the second level title text style.
    public static let title2 = Font(name: "title2")
    /// A font with the third level title text style.
    public static let title3 = Font(name: "title3")
    /// A font with the second level caption text style.
    public static let caption2 = Font(name: "caption2")
}

@available(iOS 16.0, *)
extension Font {
    /// Specifies a system font to use, along with the style, weight, and any design parameters.
    public static func system(size: CGFloat, weight: Font.Weight? = nil, design: Font.Design? = nil) -> Font {
        Font(name: "system(\(size))")
    }
}

/// An enumeration to indicate one edge of a rectangle.
@available(iOS 13.0, *)
public enum Edge: Int8, CaseIterable {
    case top, leading, bottom, trailing

    /// An efficient set of edges.
    public struct Set: OptionSet {
        public let rawValue: Int8
        public init(rawValue: Int8) { self.rawValue = rawValue }
        /// A set containing only the specified edge.
        public init(_ e: Edge) { rawValue = 1 << e.rawValue }
        public static let top = Set(.top)
        public static let leading = Set(.leading)
        public static let bottom = Set(.bottom)
        public static let trailing = Set(.trailing)
        public static let all: Edge.Set = [.top, .leading, .bottom, .trailing]
        public static let horizontal: Edge.Set = [.leading, .trailing]
        public static let vertical: Edge.Set = [.top, .bottom]
        public typealias ArrayLiteralElement = Edge.Set.Element
    }
}

@available(iOS 13.0, *)
extension Edge: Sendable {}

@available(iOS 13.0, *)
extension Edge.Set: Sendable {}

/// An alignment position along the horizontal axis.
@available(iOS 13.0, *)
public struct HorizontalAlignment: Equatable {
    let name: String
    /// A guide that marks the leading edges of the view.
    public static let leading = HorizontalAlignment(name: "leading")
    /// A guide that marks the horizontal center of the view.
    public static let center = HorizontalAlignment(name: "center")
    /// A guide that marks the trailing edge of the view.
    public static let trailing = HorizontalAlignment(name: "trailing")
}

@available(iOS 13.0, *)
extension HorizontalAlignment: Sendable {}

/// An alignment position along the vertical axis.
@available(iOS 13.0, *)
public struct VerticalAlignment: Equatable {
    let name: String
    /// A guide that marks the top edge of the view.
    public static let top = VerticalAlignment(name: "top")
    /// A guide that marks the vertical center of the view.
    public static let center = VerticalAlignment(name: "center")
    /// A guide that marks the bottom edge of the view.
    public static let bottom = VerticalAlignment(name: "bottom")
    /// A guide that marks the top-most text baseline in a view.
    public static let firstTextBaseline = VerticalAlignment(name: "firstTextBaseline")
    /// A guide that marks the bottom-most text baseline in a view.
    public static let lastTextBaseline = VerticalAlignment(name: "lastTextBaseline")
}

@available(iOS 13.0, *)
extension VerticalAlignment: Sendable {}

/// An alignment in both axes.
@available(iOS 13.0, *)
public struct Alignment: Equatable {
    /// The alignment on the horizontal axis.
    public var horizontal: HorizontalAlignment
    /// The alignment on the vertical axis.
    public var vertical: VerticalAlignment

    /// Creates an instance with the given horizontal and vertical alignments.
    public init(horizontal: HorizontalAlignment, vertical: VerticalAlignment) {
        self.horizontal = horizontal
        self.vertical = vertical
    }

    public static let center = Alignment(horizontal: .center, vertical: .center)
    public static let leading = Alignment(horizontal: .leading, vertical: .center)
    public static let trailing = Alignment(horizontal: .trailing, vertical: .center)
    public static let top = Alignment(horizontal: .center, vertical: .top)
    public static let bottom = Alignment(horizontal: .center, vertical: .bottom)
}

@available(iOS 13.0, *)
extension Alignment: Sendable {}
