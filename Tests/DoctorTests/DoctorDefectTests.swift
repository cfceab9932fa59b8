import DropTrackContract
import DropTrackDoctor
import DropTrackTesting
import DropTrackWire
import Foundation
import Testing

/// Findings that came out wrong from outside: missed, filed under the wrong trap, or reported twice.
@Suite("The doctor files each mistake once, under the right trap")
struct DoctorDefectTests {
    @Test("a relevance-score sent as a string is reported under DT-023; a number passes")
    func relevanceScoreType() {
        let asText = F.apns(F.editAPS(F.updateJSON) { $0["relevance-score"] = .string("100") })
        let hits = Doctor.examine(asText, context: DoctorContext(now: F.now)).filter {
            $0.field == "aps.relevance-score"
        }
        #expect(hits.map(\.trap) == ["DT-023"], "\(hits)")
        #expect(hits.first?.severity == .error)

        let asNumber = F.apns(F.editAPS(F.updateJSON) { $0["relevance-score"] = .number(100) })
        let clean = Doctor.examine(asNumber, context: DoctorContext(now: F.now))
        #expect(!clean.contains { $0.field == "aps.relevance-score" }, "\(clean)")
    }

    @Test(
        "a provider token that is a shell variable nobody expanded is missing credentials (DT-063), not a rejected JWT",
        arguments: ["bearer $APNS_AUTH_TOKEN", "bearer ${APNS_AUTH_TOKEN}", "Bearer $(cat token.jwt)"])
    func unexpandedVariable(_ authorization: String) {
        let push = F.apns(F.updateJSON, headers: F.headers(authorization: authorization))
        let findings = Doctor.examine(push, context: DoctorContext(now: F.now))
        let onHeader = findings.filter { $0.field == "authorization" }
        #expect(onHeader.map(\.trap) == ["DT-063"], "\(findings)")
        #expect(onHeader.first?.severity == .error)
        #expect(!findings.contains { $0.trap == "DT-064" }, "\(findings)")
    }

    @Test("a per-activity token that carries its activity id needs no correlation id (DT-045)")
    func tokenBoundToItsActivity() {
        func correlation(_ token: DoctorContext.Token) -> [LintFinding] {
            let context = DoctorContext(now: F.now, contract: .delivery, token: token)
            return Doctor.examine(F.cleanUpdate, context: context).filter { $0.trap == "DT-045" }
        }
        #expect(correlation(.init(kind: .perActivity, activityId: "order-1")).isEmpty)
        #expect(correlation(.init(kind: .perActivity, correlationId: "order-1")).isEmpty)
        #expect(correlation(.init(kind: .perActivity)).map(\.field) == ["token.correlationId"])
    }

    @Test("an FCM update without its sequence is reported once, as the ordering trap DT-097")
    func missingSequenceOnce() {
        let push = F.fcmData { $0["sequence"] = nil }
        let findings = Doctor.examine(push, context: DoctorContext(now: F.now, contract: .delivery))
        let aboutOrder = findings.filter {
            $0.field?.hasPrefix("message.data") == true && $0.message.contains("sequence")
        }
        #expect(aboutOrder.map(\.trap) == ["DT-097"], "\(findings)")
        #expect(!findings.contains { $0.trap == "DT-092" }, "\(findings)")
    }
}
