import DropTrackAPI
import DropTrackContract
import DropTrackCore
import DropTrackDispatch
import DropTrackModel
import DropTrackStore
import DropTrackWire
import Testing

@Suite("The diagnosis's JSON form, rendered by the API from the domain's typed value")
struct DiagnosisJSONTests {
    @Test("keys, nulls and numbers are what GET /v1/activities/{id}/diagnosis has always answered")
    func wireForm() {
        let diagnosis = Diagnosis(
            activityId: "o-1", state: .active, version: 3, timestamp: 1_796_000_100,
            findings: [
                .init(trap: "DT-041", severity: .error, message: "no update token", fix: "register it"),
                .init(trap: nil, severity: .info, message: "1 send(s) still queued", fix: "wait", device: "fp1"),
            ],
            devices: [
                .init(
                    fingerprint: Fingerprint(rawValue: "fp1"), kind: .activity, valid: true, lastAcceptedVersion: 3,
                    upToDate: true),
                .init(
                    fingerprint: Fingerprint(rawValue: "fp2"), kind: .pushToStart, valid: false,
                    lastAcceptedVersion: nil, upToDate: false),
            ])
        let text = String(decoding: diagnosis.json.serialized(), as: UTF8.self)
        #expect(
            text
                == #"{"activityId":"o-1","devices":[{"fingerprint":"fp1","kind":"activity","lastAcceptedVersion":3,"#
                + #""upToDate":true,"valid":true},{"fingerprint":"fp2","kind":"push_to_start","lastAcceptedVersion":null,"#
                + #""upToDate":false,"valid":false}],"findings":[{"device":null,"fix":"register it","message":"#
                + #""no update token","severity":"error","trap":"DT-041"},{"device":"fp1","fix":"wait","message":"#
                + #""1 send(s) still queued","severity":"info","trap":null}],"state":"active","timestamp":1796000100,"#
                + #""version":3}"#)
    }
}
