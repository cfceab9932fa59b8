import DropTrackTesting
import Foundation
import Testing

/// The issue's rule for the model: no type in the domain's or the API's public signatures takes an
/// app, activity, user or device id as a bare `String`. What is not converted yet is listed, never
/// hidden, in `bareStringIDsNotYetTyped`.
@Suite("Typed ids in the domain's and the API's signatures")
struct BareStringIDTests {
    /// The layers whose public and package signatures must use the model's ids.
    static let layers = ["DropTrackDispatch", "DropTrackAPI"]

    /// Each public or package declaration of a layer that names an id parameter or property as a
    /// bare `String` (or `[String]`): `target/file: declaration: parameter`.
    static func bareIDs(in target: String) throws -> Set<String> {
        let declaration = try NSRegularExpression(
            pattern:
                #"\b(?:public|package)\s+(?:(?:static|mutating|final|override|nonisolated|convenience|required)\s+)*(func|init|var|let|subscript)\b\s*(\w*)"#
        )
        let names =
            "app|appId|appID|activityId|activityID|userId|userID|deviceId|deviceID|userIds|deviceIds|activityIds"
        // The name itself (`app: String`, or the inner name of `app appID: String`), or an argument label
        // whose inner name is another word (`activityId id: String`).
        let bareID = try NSRegularExpression(
            pattern: #"\b(?:("# + names + #")|("# + names + #")\s+(?!(?:"# + names
                + #")\b)\w+)\s*:\s*(?:\[String\]|String)\b"#)
        var found: Set<String> = []
        let folder = repositoryRoot + "/Sources/" + target
        let files = FileManager.default.enumerator(atPath: folder)?.compactMap { $0 as? String } ?? []
        for file in files where file.hasSuffix(".swift") {
            let text = try String(contentsOfFile: folder + "/" + file, encoding: .utf8)
            for match in declaration.matches(in: text, range: NSRange(text.startIndex..., in: text)) {
                let kind = String(text[Range(match.range(at: 1), in: text)!])
                let name = String(text[Range(match.range(at: 2), in: text)!])
                // A property's declaration is its line; a function's runs to its body.
                let start = Range(match.range, in: text)!.lowerBound
                let stop = (kind == "var" || kind == "let") ? "\n" : "{"
                let end = text[start...].firstIndex(of: Character(stop)) ?? text.endIndex
                let signature = String(text[start..<end])
                let label = name.isEmpty ? kind : "\(kind) \(name)"
                for parameter in bareID.matches(in: signature, range: NSRange(signature.startIndex..., in: signature)) {
                    let group = parameter.range(at: 1).location != NSNotFound ? 1 : 2
                    let id = String(signature[Range(parameter.range(at: group), in: signature)!])
                    found.insert("\(target)/\(file): \(label): \(id)")
                }
            }
        }
        return found
    }

    @Test("no new public signature of the domain or the API takes an id as a bare String")
    func noNewBareIDs() throws {
        var found: Set<String> = []
        for layer in Self.layers { found.formUnion(try Self.bareIDs(in: layer)) }
        #expect(!found.isEmpty || bareStringIDsNotYetTyped.isEmpty, "the scan read the layers")
        let new = found.subtracting(bareStringIDsNotYetTyped)
        #expect(
            new.isEmpty,
            "take the model's AppID, ActivityID, UserID or DeviceID instead: \(new.sorted().joined(separator: "; "))")
    }

    @Test("the list of signatures not yet typed only shrinks: an entry no longer found is removed from it")
    func listOnlyShrinks() throws {
        var found: Set<String> = []
        for layer in Self.layers { found.formUnion(try Self.bareIDs(in: layer)) }
        let gone = bareStringIDsNotYetTyped.subtracting(found)
        #expect(
            gone.isEmpty,
            "these are typed now; delete them from bareStringIDsNotYetTyped: \(gone.sorted().joined(separator: "; "))")
    }
}
