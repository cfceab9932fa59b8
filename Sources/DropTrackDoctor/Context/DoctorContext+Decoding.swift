import DropTrackContract
import DropTrackModel
import DropTrackWire
import Foundation

/// A context document that does not fit, naming the key.
public struct DoctorContextError: Error, Equatable, CustomStringConvertible, Sendable {
    /// The key path at fault (`token.enviroment`), or nil for the document as a whole.
    public var field: String?
    /// What is wrong and what would fit.
    public var message: String

    /// Creates an error for a key path.
    public init(field: String?, message: String) {
        self.field = field
        self.message = message
    }

    public var description: String { field.map { "\($0): \(message)" } ?? message }
}

extension DoctorContext {
    /// Reads a context document strictly: unknown keys (with the nearest known one), wrong types,
    /// unknown field types in contracts, each named by key path. A typo must not switch a check off
    /// without a word.
    ///
    /// The key check also reads the environment names people write (`development`, `prod`;
    /// `unknown`, and `both` for a key, as absent), so the rest is the derived `Decodable`.
    public static func decode(from bytes: [UInt8]) throws(DoctorContextError) -> DoctorContext {
        let value: JSONValue
        do {
            value = try JSONValue.parse(bytes: bytes)
        } catch {
            throw DoctorContextError(field: nil, message: "not JSON: \(error)")
        }
        guard value.objectValue != nil else {
            throw DoctorContextError(field: nil, message: "the context must be a JSON object")
        }
        let checked = try KeyShape.context.normalized(value, path: "")
        var context: DoctorContext
        do {
            context = try JSONDecoder().decode(DoctorContext.self, from: Data(checked.serialized()))
        } catch let error as DecodingError {
            throw DoctorContextError(decoding: error)
        } catch {
            throw DoctorContextError(field: nil, message: "\(error)")
        }
        // A field map inside `contracts` is named by its key.
        for (name, contract) in context.contracts ?? [:] where contract.attributesType == nil {
            context.contracts?[name]?.attributesType = name
        }
        return context
    }
}

extension DoctorContextError {
    init(decoding error: DecodingError) {
        func path(_ codingPath: [any CodingKey]) -> String? {
            let keys = codingPath.map { $0.intValue.map { "[\($0)]" } ?? $0.stringValue }
            return keys.isEmpty ? nil : keys.joined(separator: ".").replacingOccurrences(of: ".[", with: "[")
        }
        switch error {
        case .typeMismatch(_, let context), .valueNotFound(_, let context):
            self.init(field: path(context.codingPath), message: "wrong JSON type: \(context.debugDescription)")
        case .keyNotFound(let key, let context):
            self.init(field: path(context.codingPath + [key]), message: "required")
        case .dataCorrupted(let context):
            self.init(field: path(context.codingPath), message: context.debugDescription)
        @unknown default:
            self.init(field: nil, message: "\(error)")
        }
    }
}

/// The keys each part of a context document may have, and the few values read more loosely than
/// the derived decoders read them.
private indirect enum KeyShape: Sendable {
    /// Any JSON (a payload, attribute values).
    case any
    /// An object with exactly these keys.
    case object([String: KeyShape])
    /// An object with any keys, each value of one shape.
    case map(KeyShape)
    /// A built-in contract's name, or a field map.
    case contract
    /// A field rule; the set holds the types allowed.
    case field(Set<String>)
    /// An APNs environment name; `allowBoth` for a key, which may be unrestricted.
    case environment(allowBoth: Bool)

    static func plain(_ keys: [String]) -> KeyShape {
        .object(Dictionary(uniqueKeysWithValues: keys.map { ($0, .any) }))
    }

    static func keys<K: CodingKey & CaseIterable>(_ type: K.Type, except special: [String: KeyShape] = [:]) -> KeyShape
    {
        .object(
            Dictionary(uniqueKeysWithValues: K.allCases.map { ($0.stringValue, special[$0.stringValue] ?? .any) }))
    }

    static let schema: KeyShape = .object([
        "attributesType": .any, "version": .any, "compatibleVersions": .any,
        "contentState": .map(.field(ContractSchema.Field.activityTypes)),
        "attributes": .map(.field(ContractSchema.Field.activityTypes)), "output": .any, "widgetName": .any,
        "widgetNames": .any, "activityIdAttribute": .any,
        "correlationKey": .any, "mutableAttributes": .any,
        "androidData": .map(.field(ContractSchema.Field.androidTypes)),
        "androidWhenKey": .any, "androidShortTextKey": .any,
    ])

    static let fieldKeys = ["type", "optional", "values", "minimum", "maximum", "maxLength", "dateEncoding"]

    static let context: KeyShape = keys(
        DoctorContext.CodingKeys.self,
        except: [
            "contract": .contract, "contracts": .map(.contract),
            "token": keys(
                DoctorContext.Token.CodingKeys.self,
                except: ["dead": plain(["reason", "at"]), "environment": .environment(allowBoth: false)]),
            "device": plain(DeviceFacts.keys),
            "activity": keys(DoctorContext.Activity.CodingKeys.self),
            "history": keys(DoctorContext.History.CodingKeys.self),
            "config": keys(
                DoctorContext.Configuration.CodingKeys.self,
                except: [
                    "fcmAssertion": plain(["alg", "lifetimeSeconds", "audience", "padding"]),
                    "retry": plain(["maxRetries", "retryStatuses", "honorsRetryAfter", "layers"]),
                    "environment": .environment(allowBoth: false), "keyEnvironment": .environment(allowBoth: true),
                ]),
            "channel": keys(
                DoctorContext.Channel.CodingKeys.self, except: ["environment": .environment(allowBoth: false)]),
            "response": keys(DoctorContext.Response.CodingKeys.self),
        ])

    /// `value` with environment names in canonical form (`unknown` as null); throws at the first
    /// key or value that does not fit, naming its path.
    func normalized(_ value: JSONValue, path: String) throws(DoctorContextError) -> JSONValue {
        func at(_ key: String) -> String { path.isEmpty ? key : "\(path).\(key)" }
        switch self {
        case .any:
            return value
        case .object(let shape):
            guard var object = value.objectValue else {
                if value == .null { return value }
                throw DoctorContextError(field: path, message: "must be an object, not a \(value.typeName)")
            }
            for (key, member) in object.sorted(by: { $0.key < $1.key }) {
                guard let inner = shape[key] else {
                    let hint = KeySuggestion.nearest(key, among: shape.keys).map { "; did you mean '\($0)'?" } ?? ""
                    throw DoctorContextError(
                        field: at(key),
                        message: "unknown key\(hint) (known: \(shape.keys.sorted().joined(separator: ", ")))")
                }
                object[key] = try inner.normalized(member, path: at(key))
            }
            return .object(object)
        case .map(let inner):
            guard var object = value.objectValue else {
                throw DoctorContextError(field: path, message: "must be an object, not a \(value.typeName)")
            }
            for (key, member) in object.sorted(by: { $0.key < $1.key }) {
                object[key] = try inner.normalized(member, path: at(key))
            }
            return .object(object)
        case .contract:
            if value.stringValue != nil { return value }
            _ = try KeyShape.schema.normalized(value, path: path)
            if let output = value["output"]?.stringValue, !["activitykit", "expo-widgets"].contains(output) {
                throw DoctorContextError(
                    field: at("output"), message: "'\(output)' is not an output: use activitykit or expo-widgets")
            }
            return value
        case .environment(let allowBoth):
            guard value != .null else { return value }
            guard let text = value.stringValue else {
                throw DoctorContextError(
                    field: path, message: "wrong JSON type: expected a string, not a \(value.typeName)")
            }
            if text == "unknown" || (allowBoth && text == "both") { return .null }
            guard let environment = APNsEnvironment(name: text) else {
                throw DoctorContextError(
                    field: path,
                    message:
                        "'\(text)' is not an environment: use sandbox or production\(allowBoth ? " (or both)" : "")")
            }
            return .string(environment.rawValue)
        case .field(let types):
            _ = try KeyShape.plain(KeyShape.fieldKeys).normalized(value, path: path)
            guard let type = value["type"]?.stringValue else {
                throw DoctorContextError(
                    field: at("type"), message: "required: one of \(types.sorted().joined(separator: ", "))")
            }
            guard types.contains(type) else {
                let hint = KeySuggestion.nearest(type, among: types).map { "; did you mean '\($0)'?" } ?? ""
                throw DoctorContextError(
                    field: at("type"),
                    message: "'\(type)' is not a field type\(hint) (types: \(types.sorted().joined(separator: ", ")))")
            }
            if let encoding = value["dateEncoding"]?.stringValue, !ContractSchema.Field.dateEncodings.contains(encoding)
            {
                throw DoctorContextError(
                    field: at("dateEncoding"),
                    message:
                        "'\(encoding)' is not a date encoding (encodings: \(ContractSchema.Field.dateEncodings.sorted().joined(separator: ", ")))"
                )
            }
            return value
        }
    }
}
