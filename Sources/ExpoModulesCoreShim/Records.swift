// Expo's records: structs made from a JavaScript object by their `@Field` properties, as
// expo-modules-core declares them (see Arguments.swift for what the look-alike simplifies).
import Foundation

/// A type made from a JavaScript object: each `@Field` property takes the value of its key.
public protocol Record: Convertible {
    /// The dictionary a record is made from, or converted back to.
    typealias Dict = [String: Any]

    /// Creates a record with its fields' default values.
    init()

    /// Creates a record from `from`: only the `@Field` properties are set.
    init(from: Dict, appContext: AppContext) throws

    /// The record as a dictionary of its `@Field` properties.
    func toDictionary(appContext: AppContext?) -> Dict
}

extension Record {
    public static func convert(from value: Any?, appContext: AppContext) throws -> Self {
        if let value = value as? Dict { return try Self(from: value, appContext: appContext) }
        if let record = value as? Self { return record }
        throw ArgumentCastException("Cannot convert '\(String(describing: value))' to \(Self.self)")
    }

    public init(from dict: Dict, appContext: AppContext) throws {
        self.init()
        try update(withDict: dict, appContext: appContext)
    }

    /// Sets the fields whose keys `dict` holds; a required field missing from it fails.
    public func update(withDict dict: Dict, appContext: AppContext) throws {
        for field in fields(of: self) where dict.keys.contains(field.key) || field.isRequired {
            try field.set(dict[field.key] ?? NSNull())
        }
    }

    public func toDictionary(appContext: AppContext? = nil) -> Dict {
        fields(of: self).reduce(into: Dict()) { dict, field in dict[field.key] = field.get() }
    }
}

/// A `Record`'s property that takes part in its conversion from and to a dictionary.
@propertyWrapper
public final class Field<Type: AnyArgument> {
    /// The wrapped value.
    public var wrappedValue: Type
    var options: Set<FieldOption> = []

    /// A field whose key is the property's name unless an option gives one (`.keyed("…")`).
    public init(wrappedValue: Type, _ options: FieldOption...) {
        self.wrappedValue = wrappedValue
        self.options = Set(options)
    }

    /// A field with the options as an array.
    public init(wrappedValue: Type, _ options: [FieldOption]) {
        self.wrappedValue = wrappedValue
        self.options = Set(options)
    }

    /// An optional field, nil unless the dictionary has it.
    public init(wrappedValue: Type = nil) where Type: ExpressibleByNilLiteral {
        self.wrappedValue = wrappedValue
    }

    /// An optional field with options.
    public init(wrappedValue: Type = nil, _ options: FieldOption...) where Type: ExpressibleByNilLiteral {
        self.wrappedValue = wrappedValue
        self.options = Set(options)
    }

    /// The wrapped value, type-erased.
    public func get() -> Any { wrappedValue }
}

/// Options of a `Field`: its key in the dictionary, and whether the dictionary must have it.
public struct FieldOption: Equatable, Hashable, ExpressibleByIntegerLiteral, ExpressibleByStringLiteral, Sendable {
    public let rawValue: Int
    public let key: String?

    public init(_ rawValue: Int, key: String? = nil) {
        self.rawValue = rawValue
        self.key = key
    }

    public static func == (lhs: Self, rhs: Self) -> Bool { lhs.rawValue == rhs.rawValue && lhs.key == rhs.key }

    public func hash(into hasher: inout Hasher) { hasher.combine(rawValue) }

    public init(integerLiteral value: Int) { self.init(value) }

    public init(stringLiteral value: String) { self.init(0, key: value) }
}

extension FieldOption {
    /// The field's key in the dictionary.
    public static func keyed(_ key: String) -> FieldOption { FieldOption(stringLiteral: key) }

    /// The dictionary must hold the field.
    public static let required: FieldOption = 1
}

/// One `@Field` of a record, type-erased.
protocol RecordField: AnyObject {
    var options: Set<FieldOption> { get }
    func set(_ value: Any) throws
    func get() -> Any
}

extension Field: RecordField {
    func set(_ value: Any) throws {
        wrappedValue = try argument([value], 0, as: Type.self)
    }
}

extension RecordField {
    var isRequired: Bool { options.contains(.required) }
}

/// A record's fields with their keys: an option's key, else the property's name.
private func fields(of record: some Record) -> [(
    key: String, isRequired: Bool, set: (Any) throws -> Void, get: () -> Any
)] {
    Mirror(reflecting: record).children.compactMap { label, value in
        guard let field = value as? any RecordField else { return nil }
        let named = label.map { $0.hasPrefix("_") ? String($0.dropFirst()) : $0 }
        guard let key = field.options.compactMap(\.key).first ?? named else { return nil }
        return (key, field.isRequired, field.set, field.get)
    }
}
