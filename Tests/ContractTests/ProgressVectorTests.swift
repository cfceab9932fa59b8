import DropTrackContract
import DropTrackTesting
import DropTrackWidgets
import Foundation
import Testing

/// One file of `vectors/progress/`: a content-state, the Android map keys it travels as, the bar
/// every surface draws, and the doctor's finding when the state is out of range.
struct ProgressVector {
    let state: DeliveryAttributes.ContentState
    let stateJSON: JSONValue
    let data: [String: String]
    let bar: JSONValue
    let doctorField: String?

    init(_ name: String) throws {
        let object = try JSONValue.parse(try vector("progress/" + name))
        stateJSON = try #require(object["contentState"])
        state = try LiveActivityJSON.decode(DeliveryAttributes.ContentState.self, from: stateJSON.encoded())
        data = (object["data"]?.objectValue ?? [:]).compactMapValues(\.stringValue)
        bar = try #require(object["bar"])
        doctorField = object["doctor"]?["field"]?.stringValue
    }
}

/// The N-of-M vectors against the widget's logic, its view model, the Android map the server sends and
/// the server's own check of a content-state. The Kotlin planner (`PlanVectorTests.kt`), the Android
/// phone model and the doctor read the same files.
@Suite("N of M: the progress vectors against the widget logic, the Android map and the server's check")
struct ProgressVectorTests {
    static let names = vectorNames(in: "progress")

    @Test("the folder holds 3 of 12, the delivery's seven and the out-of-range cases")
    func folderIsComplete() {
        for required in [
            "3-of-12", "5-of-8", "12-of-12", "of-12-from-progress", "delivery.on-the-way", "delivery.nearby",
            "step-beyond-count", "step-count-zero", "step-without-count",
        ] {
            #expect(Self.names.contains(required + ".json"), "vectors/progress/\(required).json is missing")
        }
    }

    @Test("the widget draws the vector's bar and lines", arguments: names)
    func widgetAgrees(name: String) throws {
        let vector = try ProgressVector(name)
        let bar = DeliveryWidgetLogic.Bar(vector.state)
        #expect(bar.segmentCount == vector.bar["segmentCount"]?.numberValue.map { Int($0) })
        #expect(bar.lit == vector.bar["lit"]?.numberValue.map { Int($0) })
        #expect(bar.progressText == vector.bar["progressText"]?.stringValue)
        #expect(bar.remainingText == vector.bar["remainingText"]?.stringValue)
        #expect(bar.points == vector.bar["points"]?.arrayValue?.compactMap { $0.numberValue.map { Int($0) } })
        #expect(
            bar.androidSegmentLengths
                == vector.bar["androidSegments"]?.arrayValue?.compactMap { $0.numberValue.map { Int($0) } })

        let model = DeliveryActivityViewModel(
            attributes: DeliveryAttributes(orderId: "A-1042"), state: vector.state, isStale: false,
            now: vector.state.eta.addingTimeInterval(-600))
        #expect(model.segmentCount == bar.segmentCount && model.litSegments == bar.lit)
        #expect(model.percentText == bar.progressText && model.stopsLine == bar.remainingText)
        #expect((0..<model.segmentCount).filter { model.isLit(segment: $0) }.count == bar.lit)
    }

    @Test(
        "the server sends the vector's Android keys, and refuses an out-of-range state naming the key", arguments: names
    )
    func serverAgrees(name: String) throws {
        let vector = try ProgressVector(name)
        let map = DeliveryLiveUpdate.encode(
            .init(activityId: "act-1", event: .update, orderId: "A-1042", state: vector.state, sequence: 1))
        for (key, value) in vector.data { #expect(map[key] == value, "\(key)") }
        #expect(
            Set(map.keys).subtracting(DeliveryLiveUpdate.Key.all)
                == Set(DeliveryLiveUpdate.Key.optional.filter { vector.data[$0] != nil }))
        #expect(try DeliveryLiveUpdate.decode(map).state == vector.state, "the map reads back")

        let given = Result { try DeliveryAttributes.ContentState.fromFlexibleJSON(vector.stateJSON.encoded()) }
        if let field = vector.doctorField {
            let key = String(field.split(separator: ".").last ?? "")
            #expect(throws: ContentStateInputError.self) { try given.get() }
            if case .failure(let error as ContentStateInputError) = given {
                #expect(error.field == key && error.message.contains("'\(key)'"), "\(error)")
            }
        } else {
            #expect(try given.get() == vector.state)
        }
    }
}
