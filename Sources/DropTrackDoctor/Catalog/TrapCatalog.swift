/// The trap catalog, `docs/reference/traps.md`, built into the binary so `droptrack doctor --explain DT-017`
/// works anywhere. The target's copy (`Catalog/traps.md`) must equal `docs/reference/traps.md` byte for
/// byte; a test checks it, because SwiftPM only embeds files inside the target's folder.
public enum TrapCatalog {
    /// The ids the catalog assigns: `DT-001` … `DT-123`.
    public static let numbers: ClosedRange<Int> = 1...123

    /// The catalog as built in (Markdown, UTF-8).
    public static var bytes: [UInt8] { PackageResources.traps_md }

    /// Every entry in catalog order: its id and its text, from its `### DT-nnn — title` heading up
    /// to the next heading.
    public static let entries: [(id: String, text: String)] = parse(String(decoding: bytes, as: UTF8.self))

    /// The entry for `id` (`DT-017`; `dt-17` and `17` are read the same way).
    public static func entry(_ id: String) throws(TrapCatalogError) -> String {
        guard let canonical = canonicalID(id), let entry = entries.first(where: { $0.id == canonical }) else {
            throw TrapCatalogError(id: id)
        }
        return entry.text
    }

    /// `DT-nnn` for a number in the catalog's range, else nil.
    static func canonicalID(_ text: String) -> String? {
        var digits = Substring(text.uppercased())
        if digits.hasPrefix("DT-") { digits = digits.dropFirst(3) }
        guard !digits.isEmpty, digits.allSatisfy(\.isASCII), let number = Int(digits), numbers.contains(number) else {
            return nil
        }
        let padded = String(number)
        return "DT-" + String(repeating: "0", count: max(0, 3 - padded.count)) + padded
    }

    /// Splits the Markdown at its `### DT-nnn — ` headings; an entry ends at the next heading of
    /// any level, so the group headings (`## 2. …`) never leak into the entry before them.
    static func parse(_ markdown: String) -> [(id: String, text: String)] {
        var entries: [(id: String, text: String)] = []
        var current: (id: String, lines: [Substring])? = nil
        func close() {
            guard let open = current else { return }
            let text = open.lines.joined(separator: "\n").trimmingTrailingWhitespace()
            entries.append((open.id, text))
            current = nil
        }
        for line in markdown.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("#") {
                close()
                if line.hasPrefix("### DT-"), let id = entryID(line) { current = (id, [line]) }
            } else if current != nil {
                current?.lines.append(line)
            }
        }
        close()
        return entries
    }

    /// The id of a `### DT-nnn — title` heading line.
    private static func entryID(_ line: Substring) -> String? {
        let id = line.dropFirst(4).prefix(6)
        guard id.count == 6, line.dropFirst(10).hasPrefix(" — "), canonicalID(String(id)) == String(id) else {
            return nil
        }
        return String(id)
    }
}

/// An id that is not in the catalog.
public struct TrapCatalogError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The id as given.
    public var id: String

    /// Creates the error.
    public init(id: String) { self.id = id }

    public var description: String {
        "unknown trap id '\(id)': the catalog's ids run from DT-001 to DT-\(TrapCatalog.numbers.upperBound)"
    }
}

extension String {
    fileprivate func trimmingTrailingWhitespace() -> String {
        var text = Substring(self)
        while let last = text.last, last.isWhitespace { text = text.dropLast() }
        return String(text)
    }
}
