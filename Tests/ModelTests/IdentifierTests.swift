import DropTrackModel
import Testing

@Suite("Typed ids are checked where they are made, and refused naming the field and the rule")
struct IdentifierTests {
    @Test("each caller id takes the id rule and keeps its text")
    func callerIDs() throws {
        #expect(try ActivityID(validating: "order-1042").rawValue == "order-1042")
        #expect(try UserID(validating: "u:42").rawValue == "u:42")
        #expect(try DeviceID(validating: "iPhone_15.A").rawValue == "iPhone_15.A")
        #expect(try AppID(validating: "shop-eu").rawValue == "shop-eu")
        #expect(try AttributesType(validating: "DeliveryAttributes").description == "DeliveryAttributes")
        #expect(ActivityID("a/b") == nil, "a slash could never be reached again in a path")
        #expect(UserID(String(repeating: "x", count: 129)) == nil)
        #expect(DeviceID("..") == nil)
    }

    @Test("a refusal names the field it came from, what is wrong and the rule, as invalid_field")
    func refusal() {
        let refused = #expect(throws: Refusal.self) { try DeviceID(validating: "", field: "devices[2].deviceId") }
        #expect(refused?.code == .invalidField)
        #expect(refused?.field == "devices[2].deviceId")
        #expect(refused?.message == "'devices[2].deviceId' is empty; an id is \(Identifier.rule)")
        let byKind = #expect(throws: Refusal.self) { try ActivityID(validating: "é") }
        #expect(byKind?.field == "activityId", "without a field, the kind's usual one")
        #expect(byKind?.message.contains("has U+00E9 at character 1") == true)
    }

    @Test("an app id is the configuration's: letters, digits and '-', so every configured app has one")
    func appIDs() {
        #expect(AppID("shop-2") != nil && AppID("boutique-é") != nil)
        for bad in ["", "shop.eu", "shop_eu", "a b", "a/b"] {
            let refused = #expect(throws: Refusal.self, "\(bad.debugDescription)") { try AppID(validating: bad) }
            #expect(refused?.field == "app")
            #expect(refused?.message == "'app' is not an app id: \(AppID.rule), e.g. shop")
        }
    }

    @Test("a channel id is APNs' base64, so it may hold + / =, but never a space or nothing")
    func channelIDs() throws {
        #expect(try ChannelID(validating: "dHN0LXNyY2gtY2hubA+/=").rawValue == "dHN0LXNyY2gtY2hubA+/=")
        for bad in ["", "a b", "tab\t", String(repeating: "A", count: ChannelID.maximumLength + 1)] {
            let refused = #expect(throws: Refusal.self, "\(bad.debugDescription)") { try ChannelID(validating: bad) }
            #expect(refused?.field == "channelId")
        }
    }

    @Test("ids of different kinds with the same text are different types, and equal ids sort by their text")
    func ordering() throws {
        let ids = try ["b", "a", "c"].map { text throws(Refusal) in try ActivityID(validating: text) }
        #expect(ids.sorted().map(\.rawValue) == ["a", "b", "c"])
        #expect(Set(ids).count == 3)
    }
}

@Suite("Refusal codes are a closed set whose raw values are the wire's")
struct RefusalCodeTests {
    @Test("every code is lowercase snake case and no two cases share a wire form")
    func wireForms() {
        let forms = RefusalCode.allCases.map(\.rawValue)
        #expect(Set(forms).count == forms.count)
        for form in forms {
            #expect(form.allSatisfy { $0 == "_" || ("a"..."z").contains($0) }, "\(form)")
        }
        #expect(RefusalCode(rawValue: "activity_exists") == .activityExists)
        #expect(RefusalCode.malformedJSON.rawValue == "malformed_json")
    }

    @Test("a domain refusal carries its case's code: not_found, activity_over and corrupt_record are fixed")
    func fixedCodes() {
        #expect(Refusal.notFound("no activity 'a'").code == .notFound)
        #expect(Refusal.activityOver(message: "over").code == .activityOver)
        #expect(Refusal.corrupt(message: "row 3").code == .corruptRecord)
        #expect(Refusal.missing("userId", "the user").code == .missingField)
        #expect(Refusal.missing("userId", "the user").description == "missing_field: 'userId' is required: the user")
        #expect(RefusalCode.credentialExpired.isCredential && !RefusalCode.unauthorized.isCredential)
    }
}
