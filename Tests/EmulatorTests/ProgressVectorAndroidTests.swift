import DropTrackContract
import DropTrackCore
import DropTrackEmulators
import DropTrackTesting
import Foundation
import Testing

/// `vectors/progress/` fed to the Android phone model: the map of `android/update.on-the-way.json`
/// with the vector's keys posts the vector's bar, chip and remaining line, as the Kotlin planner does.
@Suite("N of M: the progress vectors against the Android phone model")
struct ProgressVectorAndroidTests {
    @Test(
        "the phone posts the vector's segments, lit length, chip and remaining line",
        arguments: vectorNames(in: "progress"))
    func phoneAgrees(name: String) throws {
        let object = try JSONValue.parse(try vector("progress/" + name))
        var data = (try JSONValue.parse(try vector("android/update.on-the-way.json")).objectValue ?? [:])
            .compactMapValues(\.stringValue)
        for (key, value) in object["data"]?.objectValue ?? [:] { data[key] = value.stringValue }
        let bar = try #require(object["bar"])
        func numbers(_ key: String) -> [Int] {
            bar[key]?.arrayValue?.compactMap { $0.numberValue.map { Int($0) } } ?? []
        }

        let phone = AndroidLiveUpdatePhone(clock: ManualWallClock(Date(timeIntervalSince1970: 1_796_000_000)))
        let shown = try #require(phone.receive(data: data), "drops: \(phone.drops)")
        let style = try #require(shown.progressStyle)
        #expect(style.segments.map(\.length) == numbers("androidSegments"))
        #expect(style.points.map(\.position) == numbers("points"))
        #expect(style.progress == bar["lit"]?.numberValue.map { Int($0) })
        #expect(style.max == bar["segmentCount"]?.numberValue.map { Int($0) }, "the bar is as long as the steps")
        #expect(shown.shortCriticalText == bar["progressText"]?.stringValue)
        #expect(shown.text.hasSuffix(" · " + (bar["remainingText"]?.stringValue ?? "-")), "\(shown.text)")
    }
}
