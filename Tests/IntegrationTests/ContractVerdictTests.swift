import DropTrackContract
import DropTrackCore
import DropTrackDoctor
import DropTrackEmulators
import DropTrackTesting
import DropTrackWire
import Foundation
import Testing

/// A data map that breaks the Android contract gets one verdict from three readers: the Kotlin
/// library (its `PlanVectorTests` read the same files), the Swift phone model running as that
/// library does, and the doctor, which names the same field before the map is ever sent.
@Suite("One verdict on a broken Android data map: the phone model and the doctor")
struct ContractVerdictTests {
    static let refused: [String] = vectorNames(in: "android-plans").filter { name in
        (try? Self.load(name))?["refused"] != nil
    }

    static func load(_ name: String) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: vector("android-plans/" + name)) as? [String: Any])
    }

    @Test(
        "each refused vector is dropped by the phone and reported by the doctor at the same field", arguments: refused)
    func sameVerdict(name: String) throws {
        let object = try Self.load(name)
        let data = try #require(object["data"] as? [String: String])
        let field = try #require((object["refused"] as? [String: String])?["field"])
        let phone = AndroidLiveUpdatePhone(
            settings: AndroidDeviceSettings(appChecksSequence: true, appChecksContract: true),
            clock: ManualWallClock(Date(timeIntervalSince1970: 1_796_000_000)))
        if let shown = object["shown"] as? [String: String] { _ = phone.receive(data: shown) }
        #expect(phone.receive(data: data) == nil, "the phone model drops \(name)")

        // A stale `sequence` is only stale against what the phone shows, which a push alone does not carry.
        guard field != "sequence" else { return }
        let push = DoctorFixtures.fcm { message in
            message["data"] = .object(data.mapValues { .string($0) })
        }
        let findings = Doctor.examine(push, context: DoctorContext(now: DoctorFixtures.now, contract: .delivery))
        let errors = findings.filter { $0.severity == .error }
        #expect(
            errors.contains { $0.field == "message.data.\(field)" },
            "the doctor names message.data.\(field); it said \(errors.map { "\($0.trap) \($0.field ?? "-")" })")
    }

    @Test("the folder has refused vectors to compare")
    func thereAreSome() { #expect(Self.refused.count >= 4) }
}
