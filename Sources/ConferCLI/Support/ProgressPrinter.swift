import Foundation

/// Progress on stderr for work that takes longer than a second.
///
/// Nothing is printed during the first second, so quick jobs stay quiet; after that one
/// line at most every half second. On a terminal the line is rewritten in place.
final class ProgressPrinter {
    private let label: String
    private let enabled: Bool
    private let start = ContinuousClock.now
    private var lastPrint: ContinuousClock.Instant?
    private var printedAny = false
    private let isTerminal = isatty(STDERR_FILENO) == 1

    init(label: String, enabled: Bool) {
        self.label = label
        self.enabled = enabled
    }

    /// Reports `done` of `total` units (total may be unknown).
    func update(_ done: Int, of total: Int?, unit: String = "frames") {
        guard enabled else { return }
        let now = ContinuousClock.now
        guard now - start >= .seconds(1) else { return }
        if let lastPrint, now - lastPrint < .milliseconds(500) { return }
        lastPrint = now
        var text = "\(label): \(done)"
        if let total, total > 0 { text += "/\(total) \(unit) (\(done * 100 / total)%)" } else { text += " \(unit)" }
        write(isTerminal ? "\r\u{1B}[K" + text : text + "\n")
        printedAny = true
    }

    /// Ends the progress line.
    func finish() {
        if enabled && printedAny && isTerminal { write("\n") }
    }

    private func write(_ s: String) { FileHandle.standardError.write(Data(s.utf8)) }
}
