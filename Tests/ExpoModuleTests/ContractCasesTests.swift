import DropTrackTesting
import Foundation
import Testing

@testable import DropTrackExpo

#if canImport(ExpoModulesCore)
    import ExpoModulesCore
#else
    import ExpoModulesCoreShim
#endif

/// The module's iOS side held to `clients/expo/test/contract/cases.json`, the description both phones
/// answer to (contract.test.ts drives the JavaScript layer through it, ContractCasesTests.kt the
/// Android side): each iOS case's `native` calls go through the module as JavaScript makes them, and
/// each answer must be the step's `resolves`, or an error containing `rejects`. ActivityKit's
/// look-alike keeps its activities for the whole process, so each case's ids get a suffix of their own
/// and only its own activities are compared.
@Suite("The Expo module's iOS side answers as clients/expo/test/contract/cases.json says", .serialized)
struct ContractCasesTests {
    /// Read each time it is asked for: `[String: Any]` is not Sendable, so it cannot be a stored static.
    static var contract: [String: Any] {
        let url = URL(fileURLWithPath: repositoryRoot + "/clients/expo/test/contract/cases.json")
        let data = (try? Data(contentsOf: url)) ?? Data()
        return (try? JSONDecoder().decode(CaseJSON.self, from: data))?.value as? [String: Any] ?? [:]
    }

    static var iosCases: [[String: Any]] {
        (contract["cases"] as? [[String: Any]] ?? []).filter { ($0["platforms"] as? [String] ?? []).contains("ios") }
    }

    @Test("every iOS case answers as the contract says")
    func cases() async throws {
        #expect(Self.iosCases.count >= 5, "cases.json has no iOS cases")
        for (index, contractCase) in Self.iosCases.enumerated() {
            let name = contractCase["name"] as? String ?? "case \(index)"
            let suffix = "-c\(index)-\(UUID().uuidString.prefix(6))"
            let loaded = ExpoModuleTests.Loaded()
            let steps = contractCase["steps"] as? [[String: Any]] ?? []
            let run = {
                for step in steps {
                    // No `native`: the JavaScript layer refuses before any native call.
                    guard let native = step["native"] as? [Any] else { continue }
                    try await check(name, step, args: native.map { javaScript($0, suffix) }, suffix: suffix, loaded)
                }
            }
            // A difference cases.json admits is a known issue: recorded, and failing once it is gone.
            if let known = (contractCase["knownDifferences"] as? [String: Any])?["ios"] as? String {
                await withKnownIssue(Comment(rawValue: known)) { try await run() }
            } else {
                try await run()
            }
        }
    }

    @Test("the synchronous checks answer as the support table's row for this iOS (the look-alike's, 17.2 and later)")
    func supportRow() async throws {
        let rows = (Self.contract["support"] as? [String: Any])?["rows"] as? [[String: Any]] ?? []
        let row = try #require(rows.first { $0["platform"] as? String == "ios" && $0["version"] as? String == "17.2" })
        let loaded = ExpoModuleTests.Loaded()
        for name in ["isSupported", "isPushToStartEligible", "canPostPromotedNotifications"] {
            let answer = try await loaded.definition.call(name) as? Bool
            let want = row[name] as? Bool
            #expect(answer == want, Comment(rawValue: name))
        }
    }

    private func check(
        _ name: String, _ step: [String: Any], args: [Any], suffix: String, _ loaded: ExpoModuleTests.Loaded
    ) async throws {
        let call = step["call"] as? String ?? ""
        let rejects = step["rejects"] as? String
        let answer: Any?
        do {
            answer = try await loaded.definition.call(call, args)
        } catch {
            let message = String(describing: error) + " " + error.localizedDescription
            let expectedRejection = rejects.map { message.contains($0) } == true
            #expect(expectedRejection, Comment(rawValue: "\(name): \(call) rejected: \(message)"))
            return
        }
        #expect(rejects == nil, "\(name): \(call) answered; the contract says it rejects with '\(rejects ?? "")'")
        var expected = javaScript(step["resolves"] ?? NSNull(), suffix)
        var actual = answer
        if call == "getRunningActivities" {
            // Only this case's activities: the look-alike still has the other cases'.
            actual = (answer as? [[String: any Sendable]] ?? []).filter {
                ($0["activityId"] as? String)?.hasSuffix(suffix) == true
            }
            expected = expected as? [Any] ?? []
        }
        // Described and matched first: `Any` values inside #expect crash Swift 6.3's IR generation.
        let described =
            "\(name): \(call) answered \(String(describing: actual)), expected \(String(describing: expected))"
        let matched = matches(expected, actual)
        #expect(matched, Comment(rawValue: described))
    }

    /// A value as JavaScript hands it to the module: `@name` → the state, numbers as Double, null as
    /// NSNull; the case's order ids made its own.
    private func javaScript(_ value: Any, _ suffix: String) -> Any {
        switch value {
        case let text as String where text.hasPrefix("@"):
            let states = Self.contract["states"] as? [String: Any] ?? [:]
            return javaScript(states[String(text.dropFirst())] ?? NSNull(), suffix)
        case let text as String where text.hasPrefix("A-"): return text + suffix
        case let text as String: return text
        case let flag as Bool: return flag
        case let number as Double: return number
        case let list as [Any]: return list.map { javaScript($0, suffix) }
        case let object as [String: Any]: return object.mapValues { javaScript($0, suffix) }
        default: return NSNull()
        }
    }

    /// Equal, where `"*"` stands for any non-empty string (the local id the phone chose).
    private func matches(_ expected: Any, _ actual: Any?) -> Bool {
        switch expected {
        case let text as String where text == "*": return (actual as? String)?.isEmpty == false
        case let text as String: return actual as? String == text
        case let flag as Bool: return actual as? Bool == flag
        case let number as Double: return actual as? Double == number
        case let list as [Any]:
            guard let items = actual as? [Any], items.count == list.count else { return false }
            return zip(list, items).allSatisfy { matches($0, $1) }
        case let object as [String: Any]:
            guard let fields = actual as? [String: Any], Set(fields.keys) == Set(object.keys) else { return false }
            return object.allSatisfy { key, value in matches(value, fields[key]) }
        default: return actual == nil || actual is NSNull || actual is Void
        }
    }
}

/// cases.json as JavaScript reads it: a number is a Double and never a Bool, which JSONSerialization's
/// NSNumber can be taken for on Linux (`0 as? Bool` is false there).
private enum CaseJSON: Decodable {
    case null, bool(Bool), number(Double), string(String), array([CaseJSON]), object([String: CaseJSON])

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let flag = try? container.decode(Bool.self) {
            self = .bool(flag)
        } else if let number = try? container.decode(Double.self) {
            self = .number(number)
        } else if let text = try? container.decode(String.self) {
            self = .string(text)
        } else if let list = try? container.decode([CaseJSON].self) {
            self = .array(list)
        } else {
            self = .object(try container.decode([String: CaseJSON].self))
        }
    }

    var value: Any {
        switch self {
        case .null: NSNull()
        case .bool(let flag): flag
        case .number(let number): number
        case .string(let text): text
        case .array(let list): list.map(\.value)
        case .object(let fields): fields.mapValues(\.value)
        }
    }
}
