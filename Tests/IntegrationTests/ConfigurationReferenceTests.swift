import DropTrackDispatch
import DropTrackRuntime
import Foundation
import Testing

/// docs/reference/configuration.md is printed from `ServerConfiguration.keys` by `droptrack config keys`: these
/// tests hold that list to what the decoder and the variable loader actually read, so the page cannot drift.
@Suite("The configuration reference is the decoder's own list")
struct ConfigurationReferenceTests {
    @Test("every key the file decoder accepts is in the reference table, and the table has no other")
    func tableIsTheDecodersKeys() {
        let decoded = Set(ServerConfiguration.CodingKeys.allCases.map(\.rawValue))
        let listed = ServerConfiguration.keys.map(\.key)
        #expect(Set(listed) == decoded, "in the decoder only: \(decoded.subtracting(listed).sorted())")
        #expect(listed.count == Set(listed).count, "a key is listed twice")
    }

    @Test("every variable in the table is read by the loader: setting it alone changes the configuration")
    func everyVariableIsRead() throws {
        let strings = [
            "listen": "127.0.0.1:9", "store": "memory", "apnsHost": "127.0.0.1:9", "fcmBaseURL": "https://localhost:9",
            "caFile": "ca.pem", "logLevel": "debug", "webhookAllowedNetworks": "10.20.0.0/16",
        ]
        let defaults = try ServerConfiguration.load(file: nil, environment: [:])
        for entry in ServerConfiguration.reference {
            guard let variable = entry.variable else { continue }
            let value: String
            switch entry.type {
            // Twice the default and one: valid for every bound (streams below connections, backoff base below max).
            case "integer", "number": value = String(2 * (Int(entry.defaultValue ?? "0") ?? 0) + 1)
            case "boolean": value = entry.defaultValue == "true" ? "false" : "true"
            default: value = try #require(strings[entry.key], "no sample value for \(entry.key)")
            }
            let loaded = try ServerConfiguration.load(file: nil, environment: [variable: value])
            #expect(loaded != defaults, "\(variable)=\(value) changed nothing: the loader does not read it")
        }
    }

    @Test("types and defaults come from the decoded type: none unknown, and they match its properties")
    func typesAndDefaults() throws {
        let reference = Dictionary(uniqueKeysWithValues: ServerConfiguration.reference.map { ($0.key, $0) })
        #expect(reference.values.allSatisfy { $0.type != "unknown" && !$0.meaning.isEmpty })
        #expect(reference["maxBodyBytes"]?.type == "integer" && reference["maxBodyBytes"]?.defaultValue == "262144")
        #expect(reference["leaseSeconds"]?.type == "number" && reference["leaseSeconds"]?.defaultValue == "60")
        #expect(reference["console"]?.type == "boolean" && reference["console"]?.defaultValue == "true")
        #expect(reference["store"]?.defaultValue == "\"sqlite:droptrack.sqlite\"")
        #expect(reference["apnsHost"]?.type == "string" && reference["apnsHost"]?.defaultValue == nil)
        #expect(reference["webhookAllowedNetworks"]?.type == "list of strings")
        #expect(reference["apps"]?.variable == nil && reference["apps"]?.type == "list of apps")
        #expect(
            reference["maxActiveSeconds"]?.defaultValue == String(Int(ServerConfiguration().maxActiveSeconds)))
    }

    @Test("droptrack config keys prints the table, and --json the same entries")
    func printed() throws {
        let table = try runDropTrack(["config", "keys"])
        #expect(table.status == 0, "\(table.err)")
        let rows = table.out.split(separator: "\n").filter { $0.hasPrefix("| `") }
        #expect(rows.count == ServerConfiguration.keys.count)
        let json = try runDropTrack(["config", "keys", "--json"])
        let entries = try #require(
            try JSONSerialization.jsonObject(with: Data(json.out.utf8)) as? [[String: Any]])
        #expect(entries.map { $0["key"] as? String } == ServerConfiguration.keys.map(\.key))
        #expect(entries.first { $0["key"] as? String == "maxInFlight" }?["default"] as? String == "2000")
    }
}
