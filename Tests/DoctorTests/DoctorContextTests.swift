import DropTrackContract
import DropTrackDoctor
import DropTrackModel
import DropTrackTesting
import DropTrackWire
import Foundation
import Testing

@Suite("The doctor's context document")
struct DoctorContextTests {
    @Test("a full document decodes; built-in contracts by name, field maps by object, aliases for store names")
    func decodes() throws {
        let json = #"""
            {"now": 1796000100, "client": "expo-widgets", "contract": "DeliveryAttributes",
             "contracts": {"ScoreAttributes": {"contentState": {"home": {"type": "integer", "minimum": 0},
                                                                 "kickoff": {"type": "date", "optional": true, "dateEncoding": "iso8601"}},
                                                "output": "expo-widgets", "widgetName": "Score", "version": "3"}},
             "token": {"kind": "push_to_start", "environment": "development", "attributesType": "ScoreAttributes",
                       "dead": {"reason": "Unregistered", "at": 1796000000}},
             "device": {"osVersion": "18.1", "areActivitiesEnabled": true, "manufacturer": "samsung"},
             "activity": {"state": "pending", "lastSent": {"aps": {"event": "update"}}, "domainTerminal": false},
             "history": {"priority10LastHour": 4}, "channel": {"storagePolicy": 0, "environment": "unknown"},
             "config": {"environment": "prod", "keyEnvironment": "both", "retry": {"retryStatuses": [429]}, "fcmAssertion": {"alg": "RS256"}},
             "response": {"status": 410, "reason": "Unregistered", "timestamp": 1796000000123}}
            """#
        let context = try DoctorContext.decode(from: Array(json.utf8))
        #expect(context.now == 1_796_000_100 && context.client == .expoWidgets)
        #expect(context.contract == .delivery && context.contract?.compiled != nil)
        let score = try #require(context.contracts?["ScoreAttributes"])
        #expect(score.attributesType == "ScoreAttributes" && score.compiled == nil && score.schema.isExpoWidgets)
        #expect(context.token?.kind == .pushToStart && context.token?.environment == .sandbox)
        #expect(context.token?.dead?.reason == "Unregistered")
        #expect(context.activity?.state == .pendingStart)
        #expect(context.channel?.storagePolicy == .noMessageStored && context.channel?.environment == nil)
        #expect(context.config?.keyEnvironment == nil && context.config?.retry?.retryStatuses == [429])
        #expect(context.config?.environment == .production)
        #expect(context.response?.timestamp == 1_796_000_000_123)
    }

    @Test("what the encoder writes, the strict reader takes back unchanged")
    func roundTrip() throws {
        var context = DoctorFixtures.iosContext()
        context.contracts = ["ScoreAttributes": DoctorContract(schema: DoctorFixtures.scoreSchema)]
        context.channel = .init(
            id: "AAAA", environment: .production, storagePolicy: .mostRecentMessageStored, countInEnvironment: 3,
            activeActivities: 1)
        context.response = .init(
            status: 429, reason: "TooManyRequests", timestamp: 1, fcmError: "QUOTA_EXCEEDED", message: "m",
            retryAfter: 30, transportError: "goaway")
        context.config?.fcmAssertion = .init(alg: "RS256", lifetimeSeconds: 3600, audience: "a", padding: "pkcs1")
        context.activity?.lastSent = try JSONValue.parse(DoctorFixtures.updateJSON)
        context.token?.dead = .init(reason: "BadDeviceToken", at: 5)
        let encoded = try JSONEncoder().encode(context)
        let decoded = try DoctorContext.decode(from: Array(encoded))
        #expect(decoded == context)
        #expect(String(decoding: encoded, as: UTF8.self).contains(#""contract":"DeliveryAttributes""#))
    }

    @Test("unknown keys, wrong types and unknown names are refused with the key path and a suggestion")
    func refuses() {
        func error(_ json: String) -> DoctorContextError? {
            do {
                _ = try DoctorContext.decode(from: Array(json.utf8))
                return nil
            } catch {
                return error
            }
        }
        let typo = error(#"{"token": {"enviroment": "sandbox"}}"#)
        #expect(typo?.field == "token.enviroment" && typo?.message.contains("did you mean 'environment'?") == true)
        #expect(error(#"{"histroy": {}}"#)?.message.contains("'history'") == true)
        let fieldType = error(#"{"contract": {"contentState": {"eta": {"type": "datetime"}}}}"#)
        #expect(fieldType?.field == "contract.contentState.eta.type" && fieldType?.message.contains("'date'") == true)
        #expect(error(#"{"contract": "NoSuchAttributes"}"#)?.message.contains("no built-in contract") == true)
        #expect(error(#"{"token": {"kind": "voip"}}"#)?.field == "token.kind")
        #expect(error(#"{"token": {"environment": "staging"}}"#)?.message.contains("sandbox or production") == true)
        #expect(error(#"{"config": {"keyEnvironment": 1}}"#)?.field == "config.keyEnvironment")
        #expect(error(#"{"channel": {"environment": "both"}}"#)?.field == "channel.environment")
        #expect(error(#"{"now": "today"}"#)?.field == "now")
        #expect(error(#"[1]"#)?.message.contains("object") == true)
        #expect(error(#"{"#)?.message.contains("not JSON") == true)
        #expect(error(#"{"contract": {"contentState": {}, "output": "swiftui"}}"#)?.field == "contract.output")
        #expect(
            error(#"{"contract": {"contentState": {}, "androidData": {"eta": {"type": "date"}}}}"#)?.field
                == "contract.androidData.eta.type")
    }
}
