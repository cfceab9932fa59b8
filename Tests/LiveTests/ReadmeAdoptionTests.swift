import DropTrackTesting
import Foundation
import Testing

/// The iOS tutorial (docs/tutorials/ios-app.md) quotes `ReadmeAdoptionExamples.swift`, which the build compiles: the two must agree.
@Suite("The iOS tutorial's adoption examples are the compiled ones")
struct ReadmeAdoptionTests {
    /// The lines between `// README: <name>` and `// README: end` in the examples file.
    static func region(_ name: String) throws -> [String] {
        let source = try String(
            contentsOfFile: repositoryRoot + "/Tests/LiveTests/ReadmeAdoptionExamples.swift", encoding: .utf8)
        let lines = source.components(separatedBy: "\n")
        let start = try #require(lines.firstIndex(of: "// README: \(name)"))
        let end = try #require(lines[start...].firstIndex(of: "// README: end"))
        return Array(lines[(start + 1)..<end])
    }

    /// The lines of the tutorial's code block that follows `<!-- example: <name> -->`. A widget
    /// extension's `@main` is left out: a test target cannot have an entry point.
    static func readmeBlock(_ name: String) throws -> [String] {
        let readme = try String(contentsOfFile: repositoryRoot + "/docs/tutorials/ios-app.md", encoding: .utf8)
        let lines = readme.components(separatedBy: "\n")
        let marker = try #require(lines.firstIndex(of: "<!-- example: \(name) -->"), "ios-app.md lacks example \(name)")
        let open = try #require(lines[marker...].firstIndex { $0.hasPrefix("```swift") })
        let close = try #require(lines[(open + 1)...].firstIndex(of: "```"))
        return lines[(open + 1)..<close].filter { $0 != "@main" }
    }

    @Test("each iOS example in the tutorial is the compiled code", arguments: ["ios-launch", "ios-widget"])
    func readmeQuotesCompiledCode(name: String) throws {
        #expect(try Self.readmeBlock(name) == Self.region(name))
    }
}
