import DropTrackContract
import Testing

@testable import DropTrackDispatch

/// `output` and the expo-widgets widget names are checked when the configuration loads: a misspelt output
/// would otherwise send ActivityKit's content-state to an expo-widgets app, whose widget then shows nothing.
@Suite("A schema's output and widget names are checked at load")
struct SchemaOutputConfigurationTests {
    /// The error (`key | message`) the schema gives, or nil when it loads.
    func error(_ schema: AttributesSchema) -> String? {
        let configuration = ServerConfiguration(
            store: "memory", apps: [AppConfiguration(id: "scores", schemas: ["Scores": schema])])
        do {
            try configuration.validate()
            return nil
        } catch {
            return "\(error.key ?? "-") | \(error.message)"
        }
    }

    let state: [String: AttributesSchema.Field] = ["home": .init(type: "integer")]

    @Test("the forms the server renders load")
    func validOutputsLoad() {
        #expect(error(AttributesSchema(contentState: state)) == nil)
        #expect(error(AttributesSchema(contentState: state, output: "activitykit")) == nil)
        #expect(
            error(
                AttributesSchema(
                    contentState: state, output: "expo-widgets", widgetName: "ScoreSmall",
                    widgetNames: ["ScoreSmall", "ScoreLarge"])) == nil)
    }

    @Test("a misspelt output names the key and the nearest form")
    func misspeltOutput() {
        let found = error(AttributesSchema(contentState: state, output: "expo-widget"))
        #expect(found?.hasPrefix("apps[0].schemas.Scores.output | ") == true, "\(found ?? "loaded")")
        #expect(found?.contains("did you mean 'expo-widgets'?") == true, "\(found ?? "loaded")")
    }

    @Test("widget names without expo-widgets, empty or listed twice are refused with their key")
    func widgetNames() {
        let withoutOutput = error(AttributesSchema(contentState: state, widgetNames: ["ScoreSmall"]))
        #expect(withoutOutput?.hasPrefix("apps[0].schemas.Scores.widgetNames[0] | ") == true)
        #expect(withoutOutput?.contains("output is not \"expo-widgets\"") == true)

        let empty = error(AttributesSchema(contentState: state, output: "expo-widgets", widgetName: " "))
        #expect(empty?.hasPrefix("apps[0].schemas.Scores.widgetName | ") == true, "\(empty ?? "loaded")")

        let twice = error(
            AttributesSchema(contentState: state, output: "expo-widgets", widgetNames: ["ScoreLarge", "ScoreLarge"]))
        #expect(twice?.hasPrefix("apps[0].schemas.Scores.widgetNames[1] | ") == true, "\(twice ?? "loaded")")
    }

    @Test("activityIdAttribute loads for expo-widgets only, naming its key otherwise")
    func activityIdAttribute() {
        #expect(error(AttributesSchema(contentState: state, output: "expo-widgets", activityIdAttribute: true)) == nil)
        let found = error(AttributesSchema(contentState: state, activityIdAttribute: true))
        #expect(found?.hasPrefix("apps[0].schemas.Scores.activityIdAttribute | ") == true, "\(found ?? "loaded")")
        #expect(found?.contains("output is not \"expo-widgets\"") == true, "\(found ?? "loaded")")
    }
}
