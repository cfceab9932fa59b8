import DropTrackTesting
import Foundation
import Testing

/// The model's place in the architecture, held against the sources: it is the bottom of the graph,
/// the enums it and the wire define exist once, and the domain does not reach into the doctor.
@Suite("Model architecture")
struct ModelArchitectureTests {
    /// Each enum a folder's Swift files declare, by name, with its simple cases' names (what a copy
    /// of an enum under another name would repeat).
    static func enums(under folder: String) throws -> [String: Set<String>] {
        let declaration = try NSRegularExpression(
            pattern: #"^(?:public |package )?enum (\w+)[^{\n]*\{((?:.|\n)*?)^\}"#, options: [.anchorsMatchLines])
        let caseLine = try NSRegularExpression(
            pattern: #"^    case ([\w, ]+?)(?: = [^\n]*)?$"#, options: [.anchorsMatchLines])
        var found: [String: Set<String>] = [:]
        let files = FileManager.default.enumerator(atPath: folder)?.compactMap { $0 as? String } ?? []
        for file in files where file.hasSuffix(".swift") {
            let text = try String(contentsOfFile: folder + "/" + file, encoding: .utf8)
            for match in declaration.matches(in: text, range: NSRange(text.startIndex..., in: text)) {
                let name = String(text[Range(match.range(at: 1), in: text)!])
                let body = String(text[Range(match.range(at: 2), in: text)!])
                var cases: Set<String> = []
                for line in caseLine.matches(in: body, range: NSRange(body.startIndex..., in: body)) {
                    for name in body[Range(line.range(at: 1), in: body)!].split(separator: ",") {
                        cases.insert(name.trimmingCharacters(in: .whitespaces))
                    }
                }
                found[name] = cases
            }
        }
        return found
    }

    @Test("the model is the bottom of the server's graph: it depends on SHA-256 alone")
    func modelAtTheBottom() throws {
        let declared = try ArchitectureTests.declaredDependencies()
        #expect(declared["DropTrackModel"] == ["DropTrackSHA256"], "\(String(describing: declared["DropTrackModel"]))")
        for layer in ["DropTrackStore", "DropTrackWire", "DropTrackDispatch", "DropTrackAPI"] {
            #expect(declared[layer]?.contains("DropTrackModel") == true, "\(layer) speaks the model")
        }
    }

    @Test("the store defines no enum that the model or the wire already defines, by name or by its cases")
    func storeKeepsNoCopies() throws {
        let store = try Self.enums(under: repositoryRoot + "/Sources/DropTrackStore")
        var defined: [String: Set<String>] = [:]
        for layer in ["DropTrackModel", "DropTrackWire"] {
            defined.merge(try Self.enums(under: repositoryRoot + "/Sources/" + layer)) { first, _ in first }
        }
        #expect(defined["APNsEnvironment"] == ["sandbox", "production"], "the model's enums were read: \(defined)")
        #expect(store["TimelineRemedy"] != nil, "the store's enums were read: \(store.keys.sorted())")
        var copies: [String] = []
        for (name, cases) in store {
            if defined[name] != nil { copies.append("\(name) (the same name)") }
            for (other, otherCases) in defined where !cases.isEmpty && cases == otherCases {
                copies.append("\(name) (the cases of \(other))")
            }
        }
        #expect(copies.isEmpty, "the store keeps copies; use the model's or the wire's enum: \(copies.sorted())")
    }

    @Test("the domain does not import the doctor: it asks about devices through the DeviceExaminer seam")
    func domainWithoutTheDoctor() throws {
        let dispatch = try #require(try ArchitectureTests.declaredDependencies()["DropTrackDispatch"])
        #expect(!dispatch.contains("DropTrackDoctor"), "DropTrackDispatch depends on the doctor: \(dispatch.sorted())")
        let imports = try ArchitectureTests.imports(under: repositoryRoot + "/Sources/DropTrackDispatch")
        #expect(imports["DropTrackStore"] != nil, "the domain's imports were read: \(imports.keys.sorted())")
        #expect(
            imports["DropTrackDoctor"] == nil,
            "these domain files import the doctor: \(imports["DropTrackDoctor"] ?? [])")
    }
}
