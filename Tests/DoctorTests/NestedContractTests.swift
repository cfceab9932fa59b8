import DropTrackContract
import DropTrackDoctor
import DropTrackTesting
import DropTrackWire
import Foundation
import Testing

/// The doctor takes a server schema with nested `fields` and `oneOf` as it is, and checks them.
@Suite("Doctor: nested fields and one-of groups")
struct NestedContractTests {
    func findings(_ state: String) throws -> [(trap: String, field: String, message: String)] {
        let schema = try JSONDecoder().decode(ContractSchema.self, from: Data(MapperExamples.receiptJSON.utf8))
        let parsed = try JSONValue.parse(state).objectValue ?? [:]
        let push = DoctorFixtures.apns(DoctorFixtures.editState(DoctorFixtures.updateJSON) { $0 = parsed })
        var context = DoctorContext(now: DoctorFixtures.now)
        context.contract = DoctorContract(schema: schema)
        return Doctor.examine(push, context: context).map { ($0.trap, $0.field ?? "", $0.message) }
    }

    @Test("a receipt with two one-of members or a nested key missing is DT-013 with the path; one member is clean")
    func oneOf() throws {
        let two = try findings(
            #"{"orderNumber":"R","status":"onTheWay","updatedAt":0,"preparing":{},"onTheWay":{"courier":"Sam"}}"#)
        #expect(
            two.contains {
                $0.trap == "DT-013" && $0.field == "aps.content-state"
                    && $0.message.contains(
                        "exactly one of preparing, onTheWay, delivered must be set; found preparing, onTheWay")
            }, "\(two)")
        let nested = try findings(#"{"orderNumber":"R","status":"delivered","updatedAt":0,"delivered":{}}"#)
        #expect(nested.contains { $0.trap == "DT-013" && $0.field == "aps.content-state.delivered.at" }, "\(nested)")
        let clean = try findings(
            #"{"orderNumber":"R","status":"onTheWay","updatedAt":0,"onTheWay":{"courier":"Sam"}}"#)
        #expect(!clean.contains { $0.trap == "DT-013" }, "\(clean)")
    }
}
