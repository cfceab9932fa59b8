import DropTrackContract
import DropTrackCore
import DropTrackDoctor
import DropTrackModel
import DropTrackTesting
import DropTrackWire
import Foundation
import Testing

@Suite("droptrack doctor, the built binary")
struct DoctorCLITests {
    let token = DoctorFixtures.updateToken
    let jwt = DoctorFixtures.jwt()

    func write(_ text: String, in directory: String, as name: String) throws -> String {
        let path = directory + "/" + name
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    @Test("a headers+JSON file: a correct update exits 0 and says so; a broken one exits 1 with ids and fixes")
    func httpFile() throws {
        let directory = makeTemporaryDirectory("doctor")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let good = try write(
            """
            POST /3/device/\(token)
            authorization: bearer \(jwt)
            apns-topic: \(DoctorFixtures.topic)
            apns-push-type: liveactivity
            apns-priority: 5

            \(DoctorFixtures.updateJSON)
            """, in: directory, as: "good.http")
        let clean = try runDropTrack([
            "doctor", good, "--now", "\(DoctorFixtures.now)", "--contract", "DeliveryAttributes",
        ])
        #expect(clean.status == 0, "\(clean.out)\(clean.err)")
        #expect(clean.out.contains("no known trap found"))
        #expect(clean.out.contains("<token \(Fingerprint(of: token))>"))

        let broken = DoctorFixtures.editState(DoctorFixtures.updateJSON) { $0["eta"] = .number(1_796_000_720) }
        let bad = try write(
            "apns-topic: \(DoctorFixtures.bundle)\napns-push-type: liveactivity\n\n\(broken)", in: directory,
            as: "bad.http")
        let result = try runDropTrack([
            "doctor", bad, "--now", "\(DoctorFixtures.now)", "--contract", "DeliveryAttributes",
        ])
        #expect(result.status == 1)
        #expect(result.out.contains("DT-001") && result.out.contains("DT-017") && result.out.contains("fix: "))
        #expect(result.out.contains("errors,"))
    }

    @Test("a curl line, read from standard input; --token-environment against the host; --json parses")
    func curlJSON() throws {
        let curl = """
            curl -v --http2 \\
              -H "authorization: bearer \(jwt)" \\
              -H 'apns-topic: \(DoctorFixtures.topic)' -H 'apns-push-type: liveactivity' -H 'apns-priority: 5' \\
              -d '\(DoctorFixtures.updateJSON)' \\
              https://api.sandbox.push.apple.com/3/device/\(token)
            """
        let result = try runDropTrack(
            ["doctor", "-", "--json", "--now", "\(DoctorFixtures.now)", "--token-environment", "production"],
            stdin: curl)
        #expect(result.status == 1, "\(result.err)")
        let findings = try #require(JSONSerialization.jsonObject(with: Data(result.out.utf8)) as? [[String: Any]])
        #expect(findings.count == 1)
        let first = try #require(findings.first)
        #expect(first["id"] as? String == "DT-059" && first["severity"] as? String == "error")
        #expect(first["field"] as? String == "token.environment")
        #expect(Set(first.keys) == ["id", "severity", "field", "message", "fix"])
        for output in [result.out, result.err] {
            #expect(!output.contains(token) && !output.contains(jwt))
        }
    }

    @Test("--context FILE supplies what a push cannot show, and flags win over it; an FCM Live Update is recognised")
    func contextFile() throws {
        let directory = makeTemporaryDirectory("doctor")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let body = String(decoding: DoctorFixtures.fcm().body, as: UTF8.self)
        let push = try write(
            "POST https://fcm.googleapis.com/v1/projects/\(DoctorFixtures.project)/messages:send\n\n\(body)",
            in: directory, as: "fcm.http")
        let context = try write(
            #"{"now": 1796000100, "contract": "DeliveryAttributes", "device": {"notificationsEnabled": false, "manufacturer": "samsung"}}"#,
            in: directory, as: "context.json")
        let result = try runDropTrack(["doctor", push, "--context", context])
        #expect(result.status == 1)
        #expect(result.out.hasPrefix("FCM POST fcm.googleapis.com:443/v1/projects/droptrack-demo/messages:send"))
        #expect(result.out.contains("DT-106") && result.out.contains("DT-108"))
        #expect(!result.out.contains(DoctorFixtures.fcmToken))
        // --now from the command line wins over the file's: an hour later the ETA is past.
        let later = try runDropTrack(["doctor", push, "--context", context, "--now", "\(DoctorFixtures.now + 3600)"])
        #expect(later.out.contains("DT-109"))
        let viaEnvironment = try runDropTrack(["doctor", push], environment: ["DROPTRACK_DOCTOR_CONTEXT": context])
        #expect(viaEnvironment.out.contains("DT-106"))
    }

    @Test("exit 2 for usage mistakes: no FILE, unreadable FILE, bad flag values, a misspelled context key")
    func usage() throws {
        let directory = makeTemporaryDirectory("doctor")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let push = try write(DoctorFixtures.updateJSON, in: directory, as: "p.json")
        let typo = try write(#"{"device": {"osVerison": "18"}}"#, in: directory, as: "typo.json")
        #expect(try runDropTrack(["doctor"]).status == 2)
        let missing = try runDropTrack(["doctor", directory + "/nope.http"])
        #expect(missing.status == 2 && missing.err.contains("nope.http"))
        let environment = try runDropTrack(["doctor", push, "--token-environment", "staging"])
        #expect(environment.status == 2 && environment.err.contains("sandbox or production"))
        let contract = try runDropTrack(["doctor", push, "--contract", "ScoreAttributes"])
        #expect(contract.status == 2 && contract.err.contains("DeliveryAttributes"))
        let client = try runDropTrack(["doctor", push, "--client", "swiftui"])
        #expect(client.status == 2)
        let context = try runDropTrack(["doctor", push, "--context", typo])
        #expect(context.status == 2 && context.err.contains("device.osVerison") && context.err.contains("osVersion"))
        let quote = try write("curl -d '{", in: directory, as: "q.sh")
        let unterminated = try runDropTrack(["doctor", quote])
        #expect(unterminated.status == 2 && unterminated.err.contains("unterminated"))
    }

    @Test("--checklist lists the 25 app-build traps, as text and as JSON; --help documents the exit codes")
    func checklistAndHelp() throws {
        let text = try runDropTrack(["doctor", "--checklist"])
        #expect(text.status == 0 && text.out.contains("DT-071") && text.out.contains("DT-123"))
        #expect(text.out.contains("25 traps"))
        let json = try runDropTrack(["doctor", "--checklist", "--json"])
        let items = try #require(JSONSerialization.jsonObject(with: Data(json.out.utf8)) as? [[String: Any]])
        #expect(items.count == 25 && items.allSatisfy { ($0["check"] as? String)?.isEmpty == false })
        #expect(try runDropTrack(["doctor", "--checklist", "x.http"]).status == 2)
        let help = try runDropTrack(["doctor", "--help"])
        #expect(help.status == 0 && help.out.contains("EXIT STATUS") && help.out.contains("DROPTRACK_DOCTOR_"))
        #expect(try runDropTrack(["--help"]).out.contains("doctor"))
    }

    @Test("--show-request shows the request as read, with every token and credential as a fingerprint")
    func showRequest() throws {
        let text = try runDropTrack(
            ["doctor", "-", "--show-request", "--now", "\(DoctorFixtures.now)"],
            stdin: "POST /3/device/\(token)\nauthorization: bearer \(jwt)\napns-topic: t\n\n{\"aps\":{}}")
        #expect(text.out.contains("request as read:") && text.out.contains("apns-topic: t"))
        #expect(text.out.contains("bearer <credential \(Fingerprint(of: jwt))>"))
        #expect(!text.out.contains(token) && !text.out.contains(jwt))
        let body = String(decoding: DoctorFixtures.fcm().body, as: UTF8.self)
        let fcm = try runDropTrack(
            ["doctor", "-", "--show-request", "--json"],
            stdin:
                "POST https://fcm.googleapis.com/v1/projects/p/messages:send\nAuthorization: Bearer ya29.secret\n\n\(body)"
        )
        let output = try #require(JSONSerialization.jsonObject(with: Data(fcm.out.utf8)) as? [String: Any])
        let request = try #require(output["request"] as? [String: Any])
        #expect(request["provider"] as? String == "fcm" && output["findings"] is [Any])
        #expect((request["body"] as? String)?.contains("<token \(Fingerprint(of: DoctorFixtures.fcmToken))>") == true)
        #expect(!fcm.out.contains(DoctorFixtures.fcmToken) && !fcm.out.contains("ya29.secret"))
    }

    @Test("a warning alone exits 0")
    func warningsExitZero() throws {
        let directory = makeTemporaryDirectory("doctor")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let push = try write(
            "POST /3/device/\(token)\napns-topic: \(DoctorFixtures.topic)\napns-push-type: liveactivity\napns-priority: 5\n\n\(DoctorFixtures.updateJSON)",
            in: directory, as: "noauth.http")
        let result = try runDropTrack(["doctor", push, "--now", "\(DoctorFixtures.now)"])
        #expect(result.status == 0 && result.out.contains("DT-063") && result.out.contains("0 errors, 1 warning"))
    }

    @Test("--explain prints one catalog entry and exits 0; an unknown id exits 2 naming the range")
    func explain() throws {
        let entries = Dictionary(uniqueKeysWithValues: TrapCatalog.entries.map { ($0.id, $0.text) })
        for id in ["DT-001", "DT-017", "DT-063", "DT-123"] {
            let result = try runDropTrack(["doctor", "--explain", id])
            #expect(result.status == 0, "\(result.err)")
            #expect(result.out == entries[id].map { $0 + "\n" }, "\(id): \(result.out)")
        }
        let lower = try runDropTrack(["doctor", "--explain", "dt-45"])
        #expect(lower.status == 0 && lower.out.hasPrefix("### DT-045 — "))
        for bad in ["DT-124", "DT-000", "DT-17x"] {
            let result = try runDropTrack(["doctor", "--explain", bad])
            #expect(result.status == 2 && result.out.isEmpty, "\(bad): \(result.out)")
            #expect(result.err.contains("DT-001 to DT-123"), "\(bad): \(result.err)")
        }
        #expect(try runDropTrack(["doctor", "--explain", "DT-017", "push.http"]).status == 2)
    }
}

@Suite("The troubleshooting guide documents the doctor")
struct DoctorReadmeTests {
    @Test("every key the encoder writes is read back by the strict reader and documented in the troubleshooting guide")
    func everyKeyDocumented() throws {
        let context = DoctorFixtures.everyFact
        let encoded = try JSONEncoder().encode(context)
        #expect(try DoctorContext.decode(from: Array(encoded)) == context)
        var keys = Set<String>()
        func collect(_ value: JSONValue, skipping free: Set<String>) {
            for (key, member) in value.objectValue ?? [:] {
                keys.insert(key)
                if !free.contains(key) { collect(member, skipping: free) }
            }
        }
        // Field names inside a contract, and the free-form JSON an activity carries, are the app's own.
        collect(
            try JSONValue.parse(encoded),
            skipping: [
                "contracts", "contentState", "attributes", "androidData", "lastSent", "staticAttributes",
                "domainAttributes",
            ])
        keys.remove("ScoreAttributes")
        #expect(keys.count > 100)
        let guide = try String(
            contentsOfFile: repositoryRoot + "/docs/how-to/troubleshooting.md", encoding: .utf8)
        let section = try #require(guide.components(separatedBy: "## The doctor").last)
        for key in keys.sorted() {
            #expect(section.contains("`\(key)`"), "troubleshooting.md's doctor section lacks `\(key)`")
        }
    }
}
