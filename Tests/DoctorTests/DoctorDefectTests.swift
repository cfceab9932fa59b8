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

    @Test(
        "a wrong push type (DT-004) does not hide the payload's own errors: a misspelt event, a millisecond timestamp",
        arguments: ["liveActivity", "alert", "LIVEACTIVITY"])
    func payloadExaminedAfterRequestError(_ pushType: String) {
        let body = F.editAPS(F.updateJSON) {
            $0["event"] = .string("updated")
            $0["timestamp"] = .number(Double(F.now) * 1000)
        }
        let headers = F.headers().map { $0.name == "apns-push-type" ? (name: $0.name, value: pushType) : $0 }
        let findings = Doctor.examine(F.apns(body, headers: headers), context: DoctorContext(now: F.now))
        let errors = findings.filter { $0.severity == .error }
        #expect(errors.contains { $0.trap == "DT-004" && $0.field == "apns-push-type" }, "\(findings)")
        #expect(errors.contains { $0.field == "aps.event" }, "\(findings)")
        #expect(errors.contains { $0.field == "aps.timestamp" }, "\(findings)")
    }

    @Test("a correct Live Activity payload under a wrong push type reports DT-004 and nothing of the payload")
    func onlyTheRequestErrorOnACleanPayload() {
        let headers = F.headers().map { $0.name == "apns-push-type" ? (name: $0.name, value: "liveActivity") : $0 }
        let findings = Doctor.examine(F.apns(F.updateJSON, headers: headers), context: DoctorContext(now: F.now))
        #expect(findings.filter { $0.severity == .error }.map(\.trap) == ["DT-004"], "\(findings)")
    }
}
