/// "Did you mean …?" for keys: a misspelled key is ignored without a word by APNs and by Swift's
/// decoder alike, so every unknown key the doctor reports names the closest key that would work.
package enum KeySuggestion {
    /// The known key closest to `key`: the same letters in another case or separator style
    /// (`stale_date`, `staleDate` for `stale-date`), else the smallest edit distance within a third
    /// of the key's length (at least 2). Nil when nothing is close.
    package static func nearest(_ key: String, among candidates: some Sequence<String>) -> String? {
        let folded = fold(key)
        var best: (candidate: String, distance: Int)? = nil
        for candidate in candidates.sorted() where candidate != key {
            let other = fold(candidate)
            if other == folded { return candidate }
            // A truncated or extended name (`datetime` for `date`, `osVer` for `osVersion`).
            if min(other.count, folded.count) >= 4 && (other.hasPrefix(folded) || folded.hasPrefix(other)) {
                return candidate
            }
            let distance = editDistance(Array(key.lowercased().utf8), Array(candidate.lowercased().utf8))
            if distance < (best?.distance ?? Int.max) { best = (candidate, distance) }
        }
        guard let best, best.distance <= max(2, key.utf8.count / 3) else { return nil }
        return best.candidate
    }

    /// ` (did you mean 'x'?)` naming the nearest known key, or nothing when none is close: the tail of an
    /// "unknown key" message.
    package static func didYouMean(_ key: String, among candidates: some Sequence<String>) -> String {
        nearest(key, among: candidates).map { " (did you mean '\($0)'?)" } ?? ""
    }

    /// Lowercase with `-` and `_` removed, so `content_state`, `contentState` and `content-state` agree.
    static func fold(_ key: String) -> String {
        String(key.lowercased().unicodeScalars.filter { $0 != "-" && $0 != "_" })
    }

    /// Levenshtein distance over bytes (keys are ASCII in practice).
    static func editDistance(_ a: [UInt8], _ b: [UInt8]) -> Int {
        if a.isEmpty { return b.count }
        if b.isEmpty { return a.count }
        var previous = Array(0...b.count)
        var current = [Int](repeating: 0, count: b.count + 1)
        for i in 1...a.count {
            current[0] = i
            for j in 1...b.count {
                let substitution = previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1)
                current[j] = min(previous[j] + 1, current[j - 1] + 1, substitution)
            }
            swap(&previous, &current)
        }
        return previous[b.count]
    }
}
