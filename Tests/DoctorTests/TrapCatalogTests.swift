import DropTrackDoctor
import DropTrackTesting
import Foundation
import Testing

@Suite("The trap catalog, docs/reference/traps.md, as built into the doctor")
struct TrapCatalogTests {
    @Test("the built-in copy is docs/reference/traps.md, byte for byte")
    func embeddedCopy() throws {
        let file = try #require(FileManager.default.contents(atPath: repositoryRoot + "/docs/reference/traps.md"))
        #expect(
            TrapCatalog.bytes == Array(file), "copy docs/reference/traps.md to Sources/DropTrackDoctor/Catalog/traps.md"
        )
    }

    @Test("every id from DT-001 to DT-123 has exactly one entry, in order")
    func everyIDOnce() {
        let ids = TrapCatalog.entries.map(\.id)
        #expect(ids == TrapCatalog.numbers.map { String(format: "DT-%03d", $0) })
        #expect(Set(ids).count == ids.count)
    }

    @Test("each entry says what goes wrong, why, how DropTrack catches it and the fix, in a few lines")
    func entryShape() {
        for (id, text) in TrapCatalog.entries {
            let lines = text.split(separator: "\n")
            #expect(lines.first?.hasPrefix("### \(id) — ") == true, "\(id): \(lines.first ?? "")")
            #expect((4...7).contains(lines.count), "\(id) has \(lines.count) lines")
            for part in ["**Symptom:**", "**Why:**", "**Caught by:**", "**Fix:**"] {
                #expect(text.contains(part), "\(id) lacks \(part)")
            }
        }
    }

    @Test("every trap id the rules, the checklist, the simulators or the server can report has an entry")
    func everyReportedID() throws {
        let known = Set(TrapCatalog.entries.map(\.id))
        let listed = Doctor.coveredTraps + Doctor.checklist.map(\.id) + Doctor.simulatedTraps
        for id in listed { #expect(known.contains(id), "\(id) has no entry") }
        // Any id written in the sources (LiveActivityLint, the emulators, the dispatch layer).
        let sources = repositoryRoot + "/Sources"
        let files = try FileManager.default.subpathsOfDirectory(atPath: sources).filter { $0.hasSuffix(".swift") }
        var cited = Set<String>()
        for file in files {
            let text = try String(contentsOfFile: sources + "/" + file, encoding: .utf8)
            for match in text.matches(of: /DT-[0-9]{3}/) { cited.insert(String(match.output)) }
        }
        #expect(cited.count > 100)
        for id in cited.sorted() { #expect(known.contains(id), "\(id) is cited in Sources but has no entry") }
    }

    @Test("an entry is found by id in any spelling; an unknown id names the valid range")
    func lookUp() throws {
        #expect(try TrapCatalog.entry("DT-017").hasPrefix("### DT-017 — Unix date in content-state\n"))
        #expect(try TrapCatalog.entry("dt-17") == TrapCatalog.entry("DT-017"))
        #expect(try TrapCatalog.entry("123").hasPrefix("### DT-123 — "))
        for bad in ["DT-000", "DT-124", "DT-1234", "nope", ""] {
            #expect(throws: TrapCatalogError(id: bad)) { try TrapCatalog.entry(bad) }
        }
        #expect("\(TrapCatalogError(id: "DT-999"))".contains("DT-001 to DT-123"))
    }
}
