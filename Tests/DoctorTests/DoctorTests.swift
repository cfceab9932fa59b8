import DropTrackContract
import DropTrackCore
import DropTrackDoctor
import DropTrackModel
import DropTrackTesting
import DropTrackWire
import Foundation
import Testing

/// One push that hits one trap: the id the doctor must report for it.
struct TrapCase: Sendable, CustomTestStringConvertible {
    let id: String
    let push: DoctorPush
    let context: DoctorContext

    init(_ id: String, _ push: DoctorPush, _ context: DoctorContext = DoctorContext(now: DoctorFixtures.now)) {
        self.id = id
        self.push = push
        self.context = context
    }

    var testDescription: String { id }
}

typealias F = DoctorFixtures

/// A context with one part changed.
func facts(_ base: DoctorContext = DoctorContext(now: F.now), _ change: (inout DoctorContext) -> Void)
    -> DoctorContext
{
    var context = base
    change(&context)
    return context
}

extension TrapCase {
    /// Every S and S~ trap in the catalog, each with a push (and the facts) that trips it.
    static let all: [TrapCase] = [
        // 1. Request and headers.
        TrapCase(
            "DT-001",
            F.apns(
                F.updateJSON,
                headers: [("apns-topic", F.bundle), ("apns-push-type", "liveactivity"), ("apns-priority", "5")])),
        TrapCase(
            "DT-002",
            F.apns(
                F.updateJSON,
                headers: [
                    ("apns-topic", F.topic + APNsLimits.liveActivityTopicSuffix), ("apns-push-type", "liveactivity"),
                ])),
        TrapCase(
            "DT-003", F.apns(F.updateJSON, headers: [("apns-push-type", "liveactivity"), ("apns-priority", "5")])),
        TrapCase("DT-004", F.apns(F.updateJSON, headers: [("apns-topic", F.topic), ("apns-priority", "5")])),
        TrapCase(
            "DT-005",
            F.apns(
                #"{"aps":{"content-available":1}}"#,
                headers: [("apns-topic", F.bundle), ("apns-push-type", "background"), ("apns-priority", "5")]),
            facts { $0.token = .init(kind: .perActivity) }),
        TrapCase("DT-006", F.apns(F.updateJSON, priority: "1")),
        TrapCase("DT-007", F.apns(F.updateJSON, headers: F.headers() + [("apns-expiration", "1796000100000")])),
        TrapCase(
            "DT-008",
            F.apns(F.startJSON, token: F.startToken, headers: F.headers(priority: "10") + [("apns-expiration", "0")])),
        TrapCase("DT-009", F.apns(F.updateJSON, headers: F.headers() + [("apns-priority", "10")])),
        TrapCase("DT-010", F.apns(F.updateJSON, path: "/4/broadcasts/apps/\(F.bundle)")),
        TrapCase(
            "DT-011",
            F.apns(
                F.updateJSON, headers: [("apns-channel-id", F.channelID), ("apns-push-type", "liveactivity")],
                path: "/4/broadcasts/apps/\(F.topic)")),
        TrapCase("DT-012", F.cleanUpdate, facts { $0.history = .init(sendsWithoutOutcome: 2) }),

        // 2. Payload and content-state.
        TrapCase(
            "DT-013",
            F.apns(F.editState(F.updateJSON) { $0["riderName"] = $0.removeValue(forKey: "courierName") }),
            facts { $0.contract = .delivery }),
        TrapCase(
            "DT-014", F.apns(F.editAPS(F.updateJSON) { $0["content-state"] = .object(["eta": .number(817_693_520)]) }),
            facts { $0.contract = .delivery }),
        TrapCase(
            "DT-015",
            F.apns(
                F.editAPS(F.updateJSON) {
                    $0["content-state"] = .object([
                        "home": .number(1), "away": .number(0), "period": .string("overtime"),
                    ])
                }),
            facts { $0.contract = DoctorContract(schema: F.scoreSchema) }),
        TrapCase(
            "DT-016", F.apns(F.editState(F.updateJSON) { $0["progress"] = .string("0.5") }),
            facts { $0.contract = .delivery }),
        TrapCase(
            "DT-017", F.apns(F.editState(F.updateJSON) { $0["eta"] = .number(1_796_000_720) }),
            facts { $0.contract = .delivery }),
        TrapCase("DT-018", F.apns(F.editAPS(F.updateJSON) { $0["timestamp"] = .number(1_796_000_100_000) })),
        TrapCase("DT-019", F.apns(F.editAPS(F.updateJSON) { $0["timestamp"] = nil })),
        TrapCase("DT-020", F.cleanUpdate, facts { $0.activity = .init(lastTimestampSent: F.now + 50) }),
        TrapCase("DT-021", F.apns(F.editAPS(F.updateJSON) { $0["stale-date"] = .number(Double(F.now - 100)) })),
        TrapCase("DT-022", F.apns(F.editAPS(F.updateJSON) { $0["dismissal-date"] = .number(Double(F.now + 900)) })),
        TrapCase("DT-023", F.apns(F.editAPS(F.updateJSON) { $0["state-date"] = $0.removeValue(forKey: "stale-date") })),
        TrapCase(
            "DT-024",
            F.apns(F.editState(F.updateJSON) { $0["courierName"] = .string(String(repeating: "S", count: 4100)) })),
        TrapCase("DT-025", F.apns(F.editAPS(F.startJSON) { $0["alert"] = nil }, token: F.startToken, priority: "10")),
        TrapCase(
            "DT-026",
            F.apns(F.editAPS(F.startJSON) { $0["attributes-type"] = nil }, token: F.startToken, priority: "10")),
        TrapCase(
            "DT-027",
            F.apns(
                F.editAPS(F.startJSON) {
                    $0["attributes"] = .object(["orderId": .string("A-1042"), "courierName": .string("Sam")])
                }, token: F.startToken, priority: "10"),
            facts { $0.contract = .delivery }),
        TrapCase(
            "DT-028", F.apns(F.editAPS(F.updateJSON) { $0["attributes"] = .object(["orderId": .string("A-1042")]) })),
        TrapCase("DT-029", F.cleanUpdate, facts { $0.client = .expoWidgets }),
        TrapCase(
            "DT-030",
            F.apns(
                F.editAPS(F.updateJSON) {
                    $0["content-state"] = .object(["home": .number(1), "away": .number(0), "period": .string("first")])
                }),
            facts {
                $0.contract = DoctorContract(schema: F.scoreSchema)
                $0.token = .init(contractVersion: "2")
            }),
        TrapCase(
            "DT-031", F.apns(F.editState(F.updateJSON) { $0["progress"] = .number(1.4) }),
            facts { $0.contract = .delivery }),
        TrapCase(
            "DT-032",
            F.apns(
                F.editAPS(F.startJSON) {
                    $0["input-push-token"] = nil
                    $0["input-push-channel"] = .string(F.channelID)
                }, token: F.startToken, priority: "10"),
            facts { $0.device = .init(osVersion: "17.4") }),
        TrapCase(
            "DT-033",
            F.apns(F.editAPS(F.updateJSON) { $0["alert"] = .object(["title": .string("t"), "body": .string("b")]) }),
            facts { $0.history = .init(lastAlertAt: F.now - 60) }),

        // 3. Tokens and the activity's lifecycle.
        TrapCase(
            "DT-034",
            F.apns(F.updateJSON, token: Data(repeating: 0xA7, count: 32).base64EncodedString())),
        TrapCase("DT-035", F.cleanUpdate, facts { $0.token = .init(kind: .pushToStart) }),
        TrapCase(
            "DT-036", F.cleanUpdate,
            facts {
                $0.token = .init(kind: .perActivity, activityId: "act-older")
                $0.activity = .init(id: "act-A-1042")
            }),
        TrapCase("DT-037", F.cleanUpdate, facts { $0.activity = .init(state: .ended) }),
        TrapCase("DT-038", F.cleanUpdate, facts { $0.token = .init(supersededBy: "3d0a5e7d11981dd6") }),
        TrapCase("DT-039", F.cleanStart, facts { $0.activity = .init(startAcceptedAt: F.now - 600) }),
        TrapCase(
            "DT-040", F.cleanStart,
            facts { $0.device = .init(osVersion: "17.4", launchesWithoutPushToStartToken: 5) }),
        TrapCase("DT-041", F.cleanUpdate, facts { $0.activity = .init(startConfirmedAt: F.now - 600) }),
        TrapCase("DT-042", F.cleanUpdate, facts { $0.activity = .init(state: .pendingToken) }),
        TrapCase(
            "DT-043", F.cleanStart,
            facts {
                $0.activity = .init(state: .active)
                $0.history = .init(startsAccepted: 1)
            }),
        TrapCase("DT-044", F.cleanUpdate, facts { $0.activity = .init(deviceCount: 2, liveTokenCount: 1) }),
        TrapCase(
            "DT-045",
            F.apns(F.editAPS(F.startJSON) { $0["attributes"] = .object([:]) }, token: F.startToken, priority: "10"),
            facts { $0.contract = .delivery }),
        TrapCase(
            "DT-046", F.cleanUpdate,
            facts { $0.response = .init(status: 400, reason: "BadDeviceToken") }),
        TrapCase(
            "DT-047", F.cleanUpdate, facts { $0.token = .init(dead: .init(reason: "Unregistered", at: F.now - 10)) }),
        TrapCase("DT-048", F.cleanStart, facts { $0.device = .init(areActivitiesEnabled: false) }),
        TrapCase(
            "DT-049", F.cleanUpdate,
            facts { $0.activity = .init(state: .active, domainTerminal: true, terminalSince: F.now - 3600) }),

        // 4. Budgets and rates.
        TrapCase("DT-050", F.apns(F.updateJSON, priority: "10"), facts { $0.history = .init(priority10LastHour: 20) }),
        TrapCase("DT-051", F.cleanUpdate, facts { $0.device = .init(frequentPushesEnabled: false) }),
        TrapCase(
            "DT-052", F.cleanUpdate, facts { $0.activity = .init(lastSent: try! JSONValue.parse(F.updateJSON)) }),
        TrapCase(
            "DT-053", F.cleanUpdate, facts { $0.config = .init(retry: .init(retryStatuses: [400, 429, 503])) }),
        TrapCase("DT-054", F.cleanUpdate, facts { $0.history = .init(connectionErrorRate: 0.4) }),
        TrapCase("DT-055", F.cleanUpdate, facts { $0.history = .init(connectionsOpenedLastMinute: 30) }),
        TrapCase("DT-056", F.cleanUpdate, facts { $0.config = .init(requestTimeoutSeconds: 0) }),
        TrapCase("DT-057", F.cleanStart, facts { $0.device = .init(activeActivities: 5) }),
        TrapCase("DT-058", F.cleanUpdate, facts { $0.channel = .init(countInEnvironment: 10_000) }),

        // 5. Environments and credentials.
        TrapCase(
            "DT-059", F.apns(F.updateJSON, host: "api.sandbox.push.apple.com"),
            facts { $0.token = .init(environment: .production) }),
        TrapCase("DT-060", F.cleanUpdate, facts { $0.config = .init(authMode: .certificate) }),
        TrapCase(
            "DT-061", F.cleanUpdate, facts { $0.config = .init(environment: .sandbox, keyEnvironment: .production) }),
        TrapCase(
            "DT-062", F.cleanUpdate,
            facts {
                $0.token = .init(bundleId: "com.droptrack.demo.dev")
                $0.config = .init(bundleId: F.bundle)
            }),
        TrapCase("DT-063", F.apns(F.updateJSON, headers: F.headers(authorization: nil))),
        TrapCase(
            "DT-064", F.apns(F.updateJSON, headers: F.headers(authorization: "bearer " + F.jwt(iat: F.now - 4000)))),
        TrapCase(
            "DT-065",
            F.apns(
                F.updateJSON,
                headers: F.headers(
                    authorization: "bearer " + F.jwt(signature: [0x30, 0x44] + Array(repeating: 1, count: 68))))),
        TrapCase("DT-066", F.cleanUpdate, facts { $0.history = .init(jwtMintsLast20Minutes: 5) }),
        TrapCase(
            "DT-067",
            F.apns(
                F.updateJSON, headers: [("apns-channel-id", F.channelID), ("apns-push-type", "liveactivity")],
                path: "/4/broadcasts/apps/\(F.bundle)"),
            facts { $0.config = .init(broadcastEnabled: false) }),
        TrapCase(
            "DT-068",
            F.apns(
                F.updateJSON, headers: [("apns-channel-id", F.channelID), ("apns-push-type", "liveactivity")],
                path: "/4/broadcasts/apps/\(F.bundle)", host: "api.sandbox.push.apple.com"),
            facts { $0.channel = .init(environment: .production) }),
        TrapCase("DT-069", F.cleanUpdate, facts { $0.config = .init(tlsVerified: false) }),
        TrapCase("DT-070", F.cleanUpdate, facts { $0.device = .init(isSimulator: true) }),

        // 7. FCM and Android Live Updates.
        TrapCase("DT-089", F.fcmData { $0["progress"] = .number(0.5) }),
        TrapCase("DT-090", F.fcmData { $0["progress"] = .string("0,5") }, facts { $0.contract = .delivery }),
        TrapCase("DT-091", F.fcm { $0["notification"] = .object(["title": .string("On the way")]) }),
        TrapCase("DT-092", F.fcmData { $0["activityId"] = nil }),
        TrapCase("DT-093", F.fcmData { $0["google.sent_time"] = .string("1") }),
        TrapCase("DT-094", F.fcmAndroid { $0["priority"] = .string("normal") }),
        TrapCase("DT-095", F.fcmAndroid { $0["collapse_key"] = .string("act-A-1042") }),
        TrapCase("DT-096", F.fcmAndroid { $0["ttl"] = nil }),
        TrapCase("DT-097", F.fcmData { $0["sequence"] = nil }),
        TrapCase("DT-098", F.fcmData { $0["courierName"] = .string(String(repeating: "S", count: 4200)) }),
        TrapCase("DT-099", F.fcm(), facts { $0.token = .init(firebaseProject: "droptrack-staging") }),
        TrapCase("DT-100", F.fcm(), facts { $0.history = .init(sendsToDeviceLastMinute: 300) }),
        TrapCase("DT-101", F.fcm(), facts { $0.activity = .init(domainTerminal: true) }),
        TrapCase("DT-102", F.fcm(), facts { $0.token = .init(lastSeenAt: F.now - 40 * 86400) }),
        TrapCase("DT-103", F.fcm(), facts { $0.config = .init(fcmAssertion: .init(alg: "RS256", padding: "pss")) }),
        TrapCase(
            "DT-104", F.fcm(),
            facts { $0.config = .init(fcmScopes: ["https://www.googleapis.com/auth/userinfo.email"]) }),
        TrapCase(
            "DT-105",
            F.fcm {
                $0["token"] = nil
                $0["data"] = nil
                $0["topic"] = .string("orders")
                $0["apns"] = .object([
                    "live_activity_token": .string(F.updateToken),
                    "headers": .object(["apns-push-type": .string("liveactivity")]),
                    "payload": try! JSONValue.parse(F.updateJSON),
                ])
            }),
        TrapCase("DT-106", F.fcm(), facts { $0.device = .init(notificationsEnabled: false) }),
        TrapCase("DT-107", F.fcm(), facts { $0.device = .init(canPostPromoted: false) }),
        TrapCase("DT-108", F.fcm(), facts { $0.device = .init(manufacturer: "Samsung") }),
        TrapCase(
            "DT-109", F.fcmData { $0["etaEpochMillis"] = .string(String((F.now + 10) * 1000)) },
            facts { $0.contract = .delivery }),
        TrapCase("DT-110", F.fcmData { $0["segments"] = .string("[1,1,1,1,1,1,1,1,1,1,1,1]") }),
    ]
}

@Suite("The doctor: every server-detectable trap, and none on a correct push")
struct DoctorTests {
    /// The catalog's S traps and S~ traps, as its summary table lists them.
    static let catalogS: Set<String> = Set(
        (Array(1...7) + Array(9...38) + Array(42...49) + [52, 53, 54, 55, 56, 58] + Array(59...69) + Array(89...106)
            + [109, 110]).map { String(format: "DT-%03d", $0) })
    static let catalogSRisk: Set<String> = [
        "DT-008", "DT-039", "DT-040", "DT-041", "DT-050", "DT-051", "DT-057", "DT-070", "DT-107", "DT-108",
    ]

    @Test("each trap's push is reported with that trap's id", arguments: TrapCase.all)
    func trips(_ trap: TrapCase) {
        let findings = Doctor.examine(trap.push, context: trap.context)
        let hits = findings.filter { $0.trap == trap.id }
        #expect(!hits.isEmpty, "\(trap.id) not reported; got \(findings.map(\.trap))")
        if DoctorTests.catalogSRisk.contains(trap.id) {
            #expect(hits.allSatisfy { $0.severity != .error }, "an S~ rule must only warn")
        }
        for finding in findings {
            #expect(!finding.message.isEmpty && !finding.fix.isEmpty)
        }
    }

    @Test("the rules cover exactly the catalog's 82 S and 10 S~ traps, and every one has a case above")
    func coverage() {
        #expect(DoctorTests.catalogS.count == 82 && DoctorTests.catalogSRisk.count == 10)
        let covered = Set(Doctor.coveredTraps)
        #expect(Doctor.coveredTraps.count == covered.count, "one rule per id")
        #expect(covered == DoctorTests.catalogS.union(DoctorTests.catalogSRisk))
        #expect(Set(TrapCase.all.map(\.id)) == covered)
        #expect(TrapCase.all.count == covered.count)
        let risky = Set(Doctor.standardRules.filter { $0.detection == .risk }.map(\.trap))
        #expect(risky == DoctorTests.catalogSRisk)
        #expect(Doctor.standardRules.allSatisfy { !$0.title.isEmpty })
    }

    @Test("rules, checklist and simulated traps account for all 123 ids, each once")
    func wholeCatalog() {
        let all = Doctor.coveredTraps + Doctor.checklist.map(\.id) + Doctor.simulatedTraps
        #expect(all.count == 123)
        #expect(Set(all) == Set((1...123).map { String(format: "DT-%03d", $0) }))
        #expect(Doctor.checklist.count == 25)
        #expect(Doctor.simulatedTraps == ["DT-081", "DT-111", "DT-112", "DT-113", "DT-114", "DT-115"])
        #expect(Doctor.checklist.allSatisfy { !$0.check.isEmpty && ["ios", "android"].contains($0.platform) })
    }

    @Test(
        "a correct start, update and end for DeliveryAttributes hit no trap, with no context and with a full one",
        arguments: ["start", "update", "end"])
    func cleanAPNs(_ event: String) {
        let push: DoctorPush
        var full: DoctorContext
        switch event {
        case "start":
            push = F.cleanStart
            full = F.iosStartContext()
        case "update":
            push = F.cleanUpdate
            full = F.iosContext()
        default:
            push = F.cleanEnd
            full = F.iosContext()
        }
        #expect(Doctor.examine(push, context: DoctorContext(now: F.now)) == [])
        #expect(Doctor.examine(push) == [])
        #expect(Doctor.examine(push, context: full) == [])
        full.device?.osVersion = "17.4"
        #expect(Doctor.examine(push, context: full) == [])
    }

    @Test("a correct FCM Live Update data message hits no trap, with no context and with a full one")
    func cleanFCM() {
        #expect(Doctor.examine(F.fcm(), context: DoctorContext(now: F.now)) == [])
        #expect(Doctor.examine(F.fcm(), context: F.androidContext()) == [])
        let viaModel = DoctorPush(
            FCMMessage(
                target: .token(F.fcmToken),
                data: try! JSONValue.parse(F.androidUpdate).objectValue!.mapValues { $0.stringValue! }, ttl: 60),
            projectID: F.project)
        #expect(Doctor.examine(viaModel, context: F.androidContext()) == [])
    }

    @Test("the server's own APNsPush examines clean, with its provider token or before the sender adds one")
    func fromAPNsPush() {
        let push = APNsPush(
            deviceToken: F.updateToken, bundleID: F.bundle, payload: Array(F.updateJSON.utf8), priority: 5)
        #expect(Doctor.examine(DoctorPush(push, authorization: "bearer " + F.jwt()), context: F.iosContext()) == [])
        #expect(Doctor.examine(DoctorPush(push), context: F.iosContext()) == [])
        #expect(Doctor.examine(DoctorPush(push), context: DoctorContext(now: F.now)).map(\.trap) == ["DT-063"])
    }

    @Test("no finding ever prints a device token, an FCM token or the provider token")
    func noSecrets() {
        let secrets = [F.updateToken, F.startToken, F.fcmToken, F.jwt(), F.jwt(iat: F.now - 4000)]
        for trap in TrapCase.all {
            for finding in Doctor.examine(trap.push, context: trap.context) {
                let text = finding.message + finding.fix + (finding.field ?? "")
                for secret in secrets { #expect(!text.contains(secret), "\(trap.id) leaked a secret in \(finding)") }
                #expect(!text.contains("eyJ"), "\(trap.id) printed a JWT segment")
            }
        }
        let typo = F.apns(F.updateJSON, path: "/3/devices/\(F.updateToken)")
        let bad = Doctor.examine(typo).first { $0.trap == "DT-011" }
        #expect(bad?.message.contains("<token \(Fingerprint(of: F.updateToken))>") == true)
    }

    @Test("errors come first, then warnings, then notes; each group in catalog order")
    func order() {
        let push = F.apns(
            F.editAPS(F.updateJSON) {
                $0["timestamp"] = nil
                $0["stale-date"] = .number(Double(F.now - 10))
            }, headers: F.headers(authorization: nil) + [("apns-priority", "7")])
        let findings = Doctor.examine(push, context: facts { $0.response = .init(status: 410, reason: "Unregistered") })
        let ranks = findings.map { ["error": 0, "warning": 1, "info": 2][$0.severity.rawValue]! }
        #expect(ranks == ranks.sorted())
        #expect(findings.contains { $0.severity == .info })
        for severity in [LintFinding.Severity.error, .warning] {
            let ids = findings.filter { $0.severity == severity }.map(\.trap)
            #expect(ids == ids.sorted())
        }
    }

    @Test("an ordinary alert to the device token beside an activity is no trap; to the activity's token it is")
    func alertBesideActivity() {
        let alert = F.apns(
            #"{"aps":{"alert":{"title":"Delivered","body":"Enjoy"}}}"#,
            headers: [
                ("authorization", "bearer " + F.jwt()), ("apns-topic", F.bundle), ("apns-push-type", "alert"),
                ("apns-priority", "10"),
            ])
        let onDevice = facts {
            $0.token = .init(kind: .apnsDevice)
            $0.activity = .init(id: "act-A-1042", state: .active)
        }
        #expect(Doctor.examine(alert, context: onDevice) == [])
        let onActivity = facts { $0.token = .init(kind: .perActivity) }
        #expect(Set(Doctor.examine(alert, context: onActivity).map(\.trap)) == ["DT-005", "DT-035"])
    }

    @Test("a start of a misspelled type names the registered one and is not checked against another contract")
    func misspelledType() {
        let push = F.apns(
            F.editAPS(F.startJSON) { $0["attributes-type"] = .string("deliveryAttributes") }, token: F.startToken,
            priority: "10")
        let findings = Doctor.examine(push, context: facts { $0.contract = .delivery })
        #expect(findings.map(\.trap) == ["DT-026"])
        #expect(findings.first?.message.contains("did you mean \"DeliveryAttributes\"?") == true)
    }

    @Test("an expo-widgets start: a url that is no string, a key LiveActivityAttributes lacks, an unregistered widget")
    func expoWidgetsStart() {
        let push = F.apns(
            F.editAPS(F.startJSON) {
                $0["attributes-type"] = .string("LiveActivityAttributes")
                $0["attributes"] = .object(["url": .number(7), "matchId": .string("m")])
                $0["content-state"] = .object(["name": .string("ScoreHuge"), "props": .string("{}")])
            }, token: F.startToken, priority: "10")
        let schema = ContractSchema(
            contentState: [:], output: "expo-widgets", widgetName: "ScoreSmall", widgetNames: ["ScoreLarge"])
        let findings = Doctor.examine(
            push, context: facts { $0.contract = DoctorContract(schema: schema, attributesType: "Scores") }
        ).filter { $0.trap == "DT-029" }
        #expect(
            findings.map(\.field) == ["aps.attributes.url", "aps.content-state.name", "aps.attributes.matchId"],
            "\(findings)")
        #expect(findings.contains { $0.message.contains(#""ScoreSmall", "ScoreLarge""#) })
        let registered = F.apns(
            F.editAPS(F.startJSON) {
                $0["attributes-type"] = .string("LiveActivityAttributes")
                $0["attributes"] = .object(["url": .string("myapp://m")])
                $0["content-state"] = .object(["name": .string("ScoreLarge"), "props": .string("{}")])
            }, token: F.startToken, priority: "10")
        #expect(
            Doctor.examine(
                registered, context: facts { $0.contract = DoctorContract(schema: schema, attributesType: "Scores") }
            ).filter { $0.trap == "DT-029" } == [])
    }

    @Test("a rule needing a fact stays silent without it")
    func silentWithoutFacts() {
        // DT-059 needs both environments; DT-020 the last timestamp; DT-106 the permission flag.
        let tripped = Set(
            Doctor.examine(F.cleanUpdate, context: facts { $0.token = .init(environment: .production) }).map(\.trap))
        #expect(!tripped.contains("DT-059"))
        let withHost = F.apns(F.updateJSON, host: "api.push.apple.com")
        #expect(Doctor.examine(withHost, context: facts { $0.token = .init(environment: .production) }) == [])
    }

    @Test("malformed JSON is a finding, not a crash, for APNs and FCM alike")
    func malformed() {
        let apns = Doctor.examine(F.apns(#"{"aps":{"event":"update","#))
        #expect(apns.contains { $0.trap == "DT-023" && $0.field == "body" && $0.severity == .error })
        let empty = Doctor.examine(F.apns(""))
        #expect(empty.contains { $0.trap == "DT-023" && $0.message.contains("PayloadEmpty") })
        let fcm = Doctor.examine(.fcm(body: Array(#"{"message": {"data": "#.utf8)))
        #expect(fcm.contains { $0.trap == "DT-092" && $0.field == "body" })
        let noMessage = Doctor.examine(.fcm(body: Array(#"{"token":"x"}"#.utf8)))
        #expect(noMessage.contains { $0.trap == "DT-092" && $0.field == "message" })
    }

    @Test("an FCM message carrying an iOS Live Activity gets every APNs payload check, under message.apns.payload")
    func embeddedLiveActivity() {
        let broken = F.editAPS(F.updateJSON) { $0["timestamp"] = .number(1_796_000_100_000) }
        let push = F.fcm {
            $0["data"] = nil
            $0["apns"] = .object([
                "live_activity_token": .string(F.updateToken), "payload": try! JSONValue.parse(broken),
            ])
        }
        let findings = Doctor.examine(push, context: DoctorContext(now: F.now))
        #expect(findings.contains { $0.trap == "DT-018" && $0.field == "message.apns.payload.aps.timestamp" })
        #expect(findings.contains { $0.trap == "DT-105" && $0.field == "message.apns.headers.apns-push-type" })
        #expect(!findings.contains { $0.trap == "DT-092" || $0.trap == "DT-094" })
    }

    @Test("every trap LiveActivityLint and validate() report is a covered trap")
    func sharedChecksAreCovered() {
        let covered = Set(Doctor.coveredTraps)
        let payloads = [
            #"{"nope":1}"#, #"{"aps":{"event":"begin","timestamp":"x","stale-date":1.5,"dismissal-date":"y"}}"#,
            #"{"aps":{"event":"start","alert":"hi","timestamp":1}}"#,
            #"{"aps":{"event":"update","content-state":{"timestamp":5,"alert":1}}}"#,
        ]
        for payload in payloads {
            let findings = LiveActivityLint.check(
                try! JSONValue.parse(payload),
                context: .init(
                    now: Date(timeIntervalSince1970: 1_796_000_000), lastTimestamp: 1_796_000_000, activityEnded: true,
                    broadcast: true))
            #expect(!findings.isEmpty)
            #expect(findings.allSatisfy { covered.contains($0.trap) }, "\(findings.map(\.trap))")
        }
        var push = APNsPush(
            deviceToken: "zz", bundleID: "b", payload: Array(repeating: 0x20, count: 5000), priority: 3, expiration: -1,
            apnsID: "X", collapseID: String(repeating: "c", count: 70))
        push.topic = ""
        let examined = Doctor.examine(DoctorPush(push))
        for trap in ["DT-034", "DT-003", "DT-024", "DT-006", "DT-009", "DT-007"] {
            #expect(examined.contains { $0.trap == trap }, "\(trap) from validate() is not reported")
        }
    }

    @Test("an S~ rule never reports an error, even where the check would")
    func riskCapsSeverity() {
        let starts = Doctor.examine(F.cleanStart, context: facts { $0.device = .init(activeActivities: 9) })
        #expect(starts.filter { $0.trap == "DT-057" }.map(\.severity) == [.warning])
    }

    @Test("a doctor can run a subset of the rules")
    func subset() {
        let onlyTimestamps = Doctor(rules: Doctor.standardRules.filter { $0.trap == "DT-018" })
        let push = F.apns(F.editAPS(F.updateJSON) { $0["timestamp"] = .number(1_796_000_100_000) }, headers: [])
        #expect(onlyTimestamps.examine(push, context: DoctorContext(now: F.now)).map(\.trap) == ["DT-018"])
    }

    @Test("the JSON form is an array of {id, severity, field, message, fix}")
    func jsonShape() throws {
        let findings = Doctor.examine(F.apns(F.updateJSON, headers: F.headers(authorization: nil)))
        let json = Doctor.json(findings)
        let first = try #require(json.arrayValue?.first?.objectValue)
        #expect(Set(first.keys) == ["id", "severity", "field", "message", "fix"])
        #expect(first["id"] == .string("DT-063") && first["field"] == .string("authorization"))
    }
}
