import DropTrackContract
import DropTrackModel
import DropTrackTesting
import Foundation
import Testing

@testable import DropTrackDispatch

/// Mapper and nested-schema mistakes are found when the configuration loads, each naming its key.
@Suite("Declarative mapper configuration and nested schemas")
struct MapperConfigurationTests {
    /// The key of the error the receipt example gives after `edit`, or nil when it loads.
    func errorKey(_ edit: (String) -> String) -> String? {
        let edited = edit(MapperExamples.receiptJSON)
        #expect(edited != MapperExamples.receiptJSON, "the edit must change the example")
        let schema = MapperExamples.schema(edited)
        let configuration = ServerConfiguration(
            store: "memory", apps: [AppConfiguration(id: "shop", schemas: ["ReceiptAttributes": schema])])
        do {
            try configuration.validate()
            return nil
        } catch {
            return error.key.map { "\($0) | \(error.message)" }
        }
    }

    @Test("both worked examples load")
    func examplesLoad() throws {
        try ServerConfiguration(store: "memory", apps: [AppConfiguration(id: "a", schemas: MapperExamples.schemas)])
            .validate()
    }

    @Test(
        "each mistake names its key and the fix",
        arguments: [
            (
                #""status": {"enum": "status""#, #""statu": {"enum": "status""#,
                "apps[0].schemas.ReceiptAttributes.mapper.contentState.statu | ", "did you mean 'status'"
            ),
            (
                #""courier": "courier","#, #""courier": "courier..name","#,
                "apps[0].schemas.ReceiptAttributes.mapper.events[receipt.dispatched].set.courier | ",
                "write dot-separated names"
            ),
            (
                #""oneOf": [["preparing""#, #""oneOf": [["orderNumber", "preparing""#,
                "apps[0].schemas.ReceiptAttributes.oneOf[0] | ", "must then be \"optional\": true"
            ),
            (
                #""accepted": "preparing", "dispatched""#, #""accepted": "cooking", "dispatched""#,
                "apps[0].schemas.ReceiptAttributes.mapper.contentState.status.cases.accepted | ",
                "the schema does not allow"
            ),
            (
                #""updatedAt": {"date": "updatedAt"},"#, "",
                "apps[0].schemas.ReceiptAttributes.mapper.contentState.updatedAt | ",
                "required by the schema"
            ),
            (
                #""unset": ["eta"], "ends": true"#, #""unset": ["eta"], "end": true"#,
                "apps[0].schemas.ReceiptAttributes.mapper.events[receipt.delivered].end | ", "did you mean 'ends'"
            ),
            (
                #""delivered": {"type": "object", "optional": true, "fields""#,
                #""delivered": {"type": "string", "optional": true, "fields""#,
                "apps[0].schemas.ReceiptAttributes.contentState.delivered.fields | ", "for type object"
            ),
            (
                #""by": "status", "cases": {"accepted": "preparing""#, #""by": "status", "cases": {"accepted": "prep""#,
                "apps[0].schemas.ReceiptAttributes.mapper.oneOf.cases.accepted | ", "must name a field"
            ),
        ])
    func mistakes(find: String, replace: String, key: String, words: String) {
        let found = errorKey { $0.replacingOccurrences(of: find, with: replace) }
        #expect(found?.hasPrefix(key) == true, "\(found ?? "loaded")")
        #expect(found?.contains(words) == true, "\(found ?? "loaded")")
    }

    let book = ContractBook(schemas: MapperExamples.schemas)

    func refusal(_ type: String, _ state: String, book: ContractBook? = nil) -> Refusal? {
        do {
            _ = try (book ?? self.book).contentState(
                JSONValue.parse(state), type: type, field: "contentState")
            return nil
        } catch let error as Refusal {
            return error
        } catch {
            return nil
        }
    }

    @Test("a content-state with zero or two members of a one-of group is refused with the group's path")
    func topLevelOneOf() {
        let two = refusal(
            "ReceiptAttributes",
            #"{"orderNumber":"R","status":"onTheWay","updatedAt":0,"preparing":{},"onTheWay":{"courier":"Sam"}}"#)
        #expect(two?.field == "contentState")
        #expect(
            two?.message.contains(
                "exactly one of preparing, onTheWay, delivered must be set; found preparing, onTheWay")
                == true, "\(two?.message ?? "accepted")")
        let none = refusal("ReceiptAttributes", #"{"orderNumber":"R","status":"onTheWay","updatedAt":0}"#)
        #expect(none?.message.contains("found none") == true)
        #expect(
            refusal("ReceiptAttributes", #"{"orderNumber":"R","status":"onTheWay","updatedAt":0,"delivered":{}}"#)?
                .field == "contentState.delivered.at", "nested fields are checked too")
        #expect(
            refusal(
                "ReceiptAttributes", #"{"orderNumber":"R","status":"delivered","updatedAt":0,"delivered":{"at":0}}"#)
                == nil)
    }

    @Test("nested one-of groups and array items are checked with their paths")
    func nestedPaths() {
        let stop = AttributesSchema.Field(type: "object", fields: ["at": .init(type: "date")])
        let leg = AttributesSchema.Field(type: "object", optional: true, fields: ["from": .init(type: "string")])
        let book = ContractBook(schemas: [
            "Parcel": AttributesSchema(contentState: [
                "detail": .init(
                    type: "object", fields: ["pickup": leg, "transit": leg, "delivered": leg],
                    oneOf: [["pickup", "transit", "delivered"]]),
                "stops": .init(type: "array", optional: true, items: stop),
            ])
        ])
        let two = refusal("Parcel", #"{"detail":{"pickup":{"from":"a"},"transit":{"from":"b"}}}"#, book: book)
        #expect(two?.field == "contentState.detail")
        #expect(
            two?.message
                == "'contentState.detail': exactly one of pickup, transit, delivered must be set; found pickup, transit"
        )
        let item = refusal(
            "Parcel", #"{"detail":{"pickup":{"from":"a"}},"stops":[{"at":0},{"at":"noon"}]}"#, book: book)
        #expect(item?.field == "contentState.stops[1].at")
        let fine = try? book.contentState(
            JSONValue.parse(#"{"detail":{"transit":{"from":"b"}},"stops":[{"at":"2027-01-15T08:00:00Z"}]}"#),
            type: "Parcel", field: "contentState")
        #expect(
            fine?["stops"]?.arrayValue?.first?["at"]?.numberValue
                == Date(timeIntervalSince1970: 1_800_000_000).timeIntervalSinceReferenceDate)
    }
}
