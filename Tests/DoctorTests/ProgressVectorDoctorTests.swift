import DropTrackContract
import DropTrackDoctor
import DropTrackTesting
import DropTrackWire
import Foundation
import Testing

/// `vectors/progress/` against the doctor: an update carrying a vector's content-state gets DT-031 at
/// the vector's field when its step or step count is out of range, and no DT-031 otherwise.
@Suite("N of M: the doctor flags an out-of-range step or step count from the progress vectors")
struct ProgressVectorDoctorTests {
    @Test("DT-031 where the vector says, and nowhere else", arguments: vectorNames(in: "progress"))
    func doctorAgrees(name: String) throws {
        let object = try JSONValue.parse(try vector("progress/" + name))
        let state = try #require(object["contentState"]?.objectValue)
        let push = DoctorFixtures.apns(DoctorFixtures.editState(DoctorFixtures.updateJSON) { $0 = state })
        let findings = Doctor.examine(push, context: facts { $0.contract = .delivery }).filter { $0.trap == "DT-031" }
        if let field = object["doctor"]?["field"]?.stringValue {
            let finding = try #require(findings.first, "no DT-031 for \(name)")
            #expect(finding.field == field, "\(findings)")
            #expect(finding.message.contains("step"), "\(finding.message)")
        } else {
            #expect(findings.isEmpty, "\(findings)")
        }
    }
}
