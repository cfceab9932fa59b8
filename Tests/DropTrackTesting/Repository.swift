import Foundation

/// The repository root, for reading the committed vectors, docs and manifest and finding `.build/debug/droptrack`.
/// This file sits at `Tests/DropTrackTesting/`, two folders below the root.
package let repositoryRoot: String = {
    var url = URL(fileURLWithPath: #filePath)
    for _ in 0..<3 { url.deleteLastPathComponent() }
    return url.path
}()

/// A committed vector from `vectors/`.
package func vector(_ name: String) throws -> Data {
    let path = repositoryRoot + "/vectors/" + name
    guard let data = FileManager.default.contents(atPath: path) else { throw CocoaError(.fileNoSuchFile) }
    return data
}

/// The reference instant the vectors are stamped with.
package let referenceUnix: TimeInterval = 1_796_000_000

/// The files of a `vectors/` folder (`*.json`), sorted: the cases a parameterised test runs.
package func vectorNames(in folder: String) -> [String] {
    ((try? FileManager.default.contentsOfDirectory(atPath: repositoryRoot + "/vectors/" + folder)) ?? [])
        .filter { $0.hasSuffix(".json") }.sorted()
}
