import DropTrackContract
import DropTrackTesting
import Foundation
import Testing

@Suite("Contract: DeliveryAttributes as ActivityKit decodes it")
struct ContractTests {
    static let states: [(String, DeliveryAttributes.ContentState)] = {
        let at = Date(timeIntervalSince1970: referenceUnix)
        var reassigned = DeliveryStep.onTheWay.contentState(courierName: "Priya", riderReassigned: true, at: at)
        reassigned.courierName = "Priya"
        return [
            ("placed", DeliveryStep.placed.contentState(courierName: "Sam", riderReassigned: false, at: at)),
            ("on-the-way", DeliveryStep.onTheWay.contentState(courierName: "Sam", riderReassigned: false, at: at)),
            ("reassigned", reassigned),
            ("delivered", DeliveryStep.delivered.contentState(courierName: "Priya", riderReassigned: true, at: at)),
        ]
    }()

    @Test(
        "each content-state vector decodes to the expected state and encodes back to the same bytes", arguments: 0..<4)
    func contentStateVectors(index: Int) throws {
        let (name, expected) = ContractTests.states[index]
        let bytes = try vector("ios/content-state.\(name).json")
        let decoded = try LiveActivityJSON.decode(DeliveryAttributes.ContentState.self, from: bytes)
        #expect(decoded == expected)
        #expect(try LiveActivityJSON.encode(expected) == bytes)
    }

    @Test("attributes vector round-trips")
    func attributesVector() throws {
        let bytes = try vector("ios/attributes.json")
        #expect(
            try LiveActivityJSON.decode(DeliveryAttributes.self, from: bytes) == DeliveryAttributes(orderId: "A-1042"))
        #expect(try LiveActivityJSON.encode(DeliveryAttributes(orderId: "A-1042")) == bytes)
    }

    @Test("eta is seconds since 2001-01-01, not Unix seconds")
    func etaEncoding() throws {
        let state = DeliveryStep.delivered.contentState(
            courierName: "A", riderReassigned: false, at: Date(timeIntervalSince1970: referenceUnix))
        let object = try JSONSerialization.jsonObject(with: LiveActivityJSON.encode(state)) as? [String: Any]
        #expect((object?["eta"] as? NSNumber)?.doubleValue == referenceUnix - 978_307_200)
    }

    @Test("the handbook's etaEpochMillis form converts to the contract's eta")
    func handbookForm() throws {
        let json =
            #"{"status":"On the way","progress":0.5,"etaEpochMillis":1796000720000,"stopsRemaining":2,"courierName":"Sam","riderReassigned":false}"#
        let state = try DeliveryAttributes.ContentState.fromFlexibleJSON(Data(json.utf8))
        #expect(state.eta == Date(timeIntervalSince1970: 1_796_000_720))
        let encoded = String(decoding: try LiveActivityJSON.encode(state), as: UTF8.self)
        #expect(encoded.contains(#""eta":817693520,"#))
    }

    @Test("flexible input names the field that is wrong")
    func flexibleErrors() {
        #expect(throws: ContentStateInputError(field: "progress", message: "'progress' must be a number")) {
            try DeliveryAttributes.ContentState.fromFlexibleJSON(
                Data(
                    #"{"status":"x","progress":"half","eta":1,"stopsRemaining":1,"courierName":"a","riderReassigned":false}"#
                        .utf8))
        }
        #expect(
            throws: ContentStateInputError(field: "riderReassigned", message: "'riderReassigned' must be true or false")
        ) {
            try DeliveryAttributes.ContentState.fromFlexibleJSON(
                Data(
                    #"{"status":"x","progress":1,"eta":1,"stopsRemaining":1,"courierName":"a","riderReassigned":1}"#
                        .utf8))
        }
        #expect(throws: ContentStateInputError.self) {
            try DeliveryAttributes.ContentState.fromFlexibleJSON(Data(#"{"status":"x"}"#.utf8))
        }
    }

    @Test("the contract check reports why the device would drop a content-state")
    func contractVerdicts() {
        let contract = LiveActivityContract.delivery
        #expect(
            contract.checkContentState(
                Data(#"{"status":"x","progress":1,"eta":1,"stopsRemaining":1,"riderReassigned":false}"#.utf8))
                == .fails(reason: "required key 'courierName' is missing", keyPath: "courierName"))
        if case .fails(_, let keyPath) = contract.checkContentState(
            Data(
                #"{"status":"x","progress":1,"eta":"2026-12-01T00:00:00Z","stopsRemaining":1,"courierName":"a","riderReassigned":false}"#
                    .utf8))
        {
            #expect(keyPath == "eta")
        } else {
            Issue.record("an ISO string eta must fail to decode")
        }
        if case .decodes(let dates) = contract.checkContentState(try! vector("ios/content-state.on-the-way.json")) {
            #expect(dates == [Date(timeIntervalSinceReferenceDate: 817_693_520)])
        } else {
            Issue.record("the vector must decode")
        }
    }
}

@Suite("Widget view logic")
struct WidgetLogicTests {
    static let segmentCases: [(Double, Int)] = [
        (0.0, 0), (-0.5, 0), (Double.nan, 0), (0.01, 1), (1.0 / 7, 1), (2.0 / 7, 2), (3.0 / 7, 3), (0.5, 4),
        (6.0 / 7, 6), (0.99, 7), (1.0, 7), (3.5, 7), (Double.infinity, 0),
    ]
    static let percentCases: [(Double, String)] = [
        (0.0, "0%"), (0.005, "1%"), (0.5, "50%"), (5.0 / 7, "71%"), (1.0, "100%"), (1.7, "100%"), (-1.0, "0%"),
        (Double.nan, "0%"),
    ]

    @Test("segments lit out of 7: clamped, rounded up, never more than 7", arguments: segmentCases)
    func segments(progress: Double, lit: Int) {
        #expect(DeliveryWidgetLogic.litSegments(progress: progress) == lit)
    }

    @Test("every step lights exactly its own number of segments")
    func stepSegments() {
        for step in DeliveryStep.allCases {
            #expect(DeliveryWidgetLogic.litSegments(progress: step.progress) == step.rawValue)
        }
    }

    @Test(
        "stops label",
        arguments: [
            (0, "You're next"), (-3, "You're next"), (1, "1 stop away"), (2, "2 stops away"), (12, "12 stops away"),
        ])
    func stops(count: Int, label: String) {
        #expect(DeliveryWidgetLogic.stopsLabel(stopsRemaining: count) == label)
    }

    @Test("courier label, reassigned or not, compact or full")
    func courier() {
        #expect(
            DeliveryWidgetLogic.courierLabel(courierName: "Sam", riderReassigned: false, compact: false)
                == "Sam is delivering your order")
        #expect(
            DeliveryWidgetLogic.courierLabel(courierName: "Priya", riderReassigned: true, compact: false)
                == "New courier: Priya")
        #expect(DeliveryWidgetLogic.courierLabel(courierName: "Sam", riderReassigned: false, compact: true) == "Sam")
        #expect(
            DeliveryWidgetLogic.courierLabel(courierName: "Priya", riderReassigned: true, compact: true)
                == "Priya (new)")
        #expect(
            DeliveryWidgetLogic.courierLabel(courierName: "  ", riderReassigned: false, compact: true) == "Your courier"
        )
    }

    @Test("percent text", arguments: percentCases)
    func percent(progress: Double, text: String) {
        #expect(DeliveryWidgetLogic.percentText(progress: progress) == text)
    }

    @Test("minutes to the ETA never go negative")
    func minutes() {
        let now = Date(timeIntervalSince1970: referenceUnix)
        #expect(DeliveryWidgetLogic.minutesText(eta: now.addingTimeInterval(61), now: now) == "2 min")
        #expect(DeliveryWidgetLogic.minutesText(eta: now.addingTimeInterval(-600), now: now) == "0 min")
    }

    @Test("once delivered, the card reads \"Arrived · Enjoy your order\", not \"0 min · You're next\"")
    func deliveredLabels() {
        let now = Date(timeIntervalSince1970: referenceUnix)
        let delivered = DeliveryStep.delivered.contentState(courierName: "Sam", riderReassigned: false, at: now)
        #expect(
            DeliveryWidgetLogic.minutesText(eta: delivered.eta, now: now, progress: delivered.progress) == "Arrived")
        #expect(
            DeliveryWidgetLogic.stopsLabel(stopsRemaining: delivered.stopsRemaining, progress: delivered.progress)
                == "Enjoy your order")
        // The step before still counts down.
        let nearby = DeliveryStep.nearby.contentState(courierName: "Sam", riderReassigned: false, at: now)
        #expect(DeliveryWidgetLogic.minutesText(eta: nearby.eta, now: now, progress: nearby.progress) == "3 min")
        #expect(
            DeliveryWidgetLogic.stopsLabel(stopsRemaining: nearby.stopsRemaining, progress: nearby.progress)
                == "You're next")
        #expect(!DeliveryWidgetLogic.isDelivered(progress: .nan) && !DeliveryWidgetLogic.isDelivered(progress: 0.99))
    }

    @Test("the seven steps run from placed to delivered with a rising progress")
    func steps() {
        #expect(DeliveryStep.allCases.count == 7)
        #expect(DeliveryStep.allCases.first?.status == "Order placed")
        #expect(DeliveryStep.delivered.progress == 1)
        #expect(DeliveryStep(name: "picked_up") == .pickedUp)
        #expect(DeliveryStep(name: "4") == .pickedUp)
        #expect(DeliveryStep(name: "teleported") == nil)
    }
}
