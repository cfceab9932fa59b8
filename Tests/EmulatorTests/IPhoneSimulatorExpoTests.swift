import DropTrackContract
import DropTrackCore
import DropTrackEmulators
import DropTrackModel
import Foundation
import Testing

@Suite("The simulated iPhone decodes expo-widgets' LiveActivityAttributes as the library declares it")
struct IPhoneSimulatorExpoTests {
    /// A push-to-start of LiveActivityAttributes with the given attributes and content-state.
    func start(attributes: JSONValue, state: JSONValue) -> [UInt8] {
        JSONValue.object([
            "aps": .object([
                "event": .string("start"), "timestamp": .number(1_796_000_000),
                "attributes-type": .string("LiveActivityAttributes"), "attributes": attributes,
                "content-state": state, "alert": .object(["title": .string("Go")]),
            ])
        ]).serialized()
    }

    func phone() throws -> (IPhoneSimulator, DeviceToken) {
        let phone = IPhoneSimulator(
            deviceID: "expo", attributesTypes: ["LiveActivityAttributes"],
            clock: ManualWallClock(unixSeconds: 1_796_000_000)
        ) { _ in }
        return (phone, try #require(phone.pushToStartToken(for: "LiveActivityAttributes")))
    }

    @Test("{name, props} with a string url is shown; the library ignores keys it does not declare")
    func shown() throws {
        let (phone, token) = try phone()
        let state = JSONValue.object(["name": .string("Timer"), "props": .string(#"{"label":"Tea"}"#)])
        phone.receive(
            token: token, payload: start(attributes: .object(["url": .string("app://t")]), state: state), priority: 10)
        #expect(phone.activities.first?.contentState == state)
        #expect(phone.drops.isEmpty, "\(phone.drops)")
    }

    @Test("bare fields, a props that is no string, or a url that is no string are dropped")
    func dropped() throws {
        let (phone, token) = try phone()
        let wrapped = JSONValue.object(["name": .string("Timer"), "props": .string("{}")])
        for payload in [
            start(attributes: .object([:]), state: .object(["label": .string("Tea")])),
            start(attributes: .object([:]), state: .object(["name": .string("Timer"), "props": .object([:])])),
            start(attributes: .object(["url": .number(7)]), state: wrapped),
        ] {
            phone.receive(token: token, payload: payload, priority: 10)
        }
        #expect(phone.activities.isEmpty)
        #expect(phone.drops.map(\.trap) == ["DT-029", "DT-029", "DT-013"], "\(phone.drops)")
    }
}
