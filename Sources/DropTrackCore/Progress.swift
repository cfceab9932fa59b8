import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// Shows progress of long CLI work: on a terminal one line redrawn in place (count, rate, ETA);
/// otherwise a plain line every few seconds, so logs stay readable.
public final class ProgressReporter: Sendable {
    private let label: String
    private let total: Int?
    private let interactive: Bool
    private let interval: Duration
    private let state = Mutex<(done: Int, lastPrint: ContinuousClock.Instant, started: ContinuousClock.Instant)>(
        (0, .now, .now))

    /// Creates a reporter writing to standard error.
    public init(label: String, total: Int?, interactive: Bool? = nil) {
        self.label = label
        self.total = total
        let tty = interactive ?? (isatty(STDERR_FILENO) == 1)
        self.interactive = tty
        self.interval = tty ? .milliseconds(200) : .seconds(5)
    }

    /// Records `count` more finished items and prints when due.
    public func advance(by count: Int = 1) {
        let line: String? = state.withLock { state in
            state.done += count
            let now = ContinuousClock.now
            guard now - state.lastPrint >= interval, total.map({ state.done < $0 }) ?? true else { return nil }
            state.lastPrint = now
            return render(done: state.done, elapsed: now - state.started)
        }
        if let line { write(line, final: false) }
    }

    /// Prints the last line.
    public func finish() {
        let line = state.withLock { render(done: $0.done, elapsed: .now - $0.started) }
        write(line, final: true)
    }

    private func render(done: Int, elapsed: Duration) -> String {
        let seconds = max(Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18, 0.001)
        let rate = Double(done) / seconds
        var text = "\(label): \(done)"
        if let total {
            text += "/\(total)"
            let remaining = rate > 0 ? Double(total - done) / rate : 0
            text += String(format: "  %.0f/s  ETA %.0fs", rate, max(remaining, 0))
        } else {
            text += String(format: "  %.0f/s", rate)
        }
        return text
    }

    private func write(_ line: String, final: Bool) {
        let text = interactive ? "\r\u{1B}[2K" + line + (final ? "\n" : "") : line + "\n"
        FileHandle.standardError.write(Data(text.utf8))
    }
}
