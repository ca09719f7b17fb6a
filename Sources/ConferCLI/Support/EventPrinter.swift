import Foundation
import Synchronization

/// Prints what happens in a live run: with `--events`, one JSON object per line on stdout
/// (`{"event": NAME, "t": SECONDS, …}`, `t` counted from the printer's making); otherwise,
/// unless quiet, a line per notable event on stderr for people. Meetings add their events in
/// `EventPrinter+Meeting.swift`.
final class EventPrinter: Sendable {
    let json: Bool
    let quiet: Bool
    /// Where the JSON lines go: stdout, but for tests.
    private let destination: FileHandle
    /// Held while a line is written. Printers print from more than one thread (`confer live`
    /// relays the host's lines from a reader thread beside its own `second` lines), and a
    /// pipe keeps a write whole only up to `PIPE_BUF` (4 KiB): a longer line could otherwise
    /// be split by another's.
    private let writing = Mutex(())
    private let start = ContinuousClock.now

    init(json: Bool, quiet: Bool, destination: FileHandle = .standardOutput) {
        self.json = json
        self.quiet = quiet
        self.destination = destination
    }

    private var elapsed: Double {
        let d = ContinuousClock.now - start
        return Double(d.components.seconds) + Double(d.components.attoseconds) / 1e18
    }

    /// Prints an object with `event` set to `name`.
    func print(_ name: String, _ fields: [String: Any]) {
        if json {
            var object = fields
            object["event"] = name
            line(object)
        }
    }

    /// A line for people on stderr.
    func note(_ text: String) {
        guard !quiet else { return }
        FileHandle.standardError.write(Data((String(format: "[%6.2f] ", elapsed) + text + "\n").utf8))
    }

    /// Writes `object`, stamped with `t`, as one line on the destination.
    func line(_ object: [String: Any]) {
        var object = object
        object["t"] = (elapsed * 1000).rounded() / 1000
        guard let data = try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]) else { return }
        writing.withLock { _ in destination.write(data + Data("\n".utf8)) }
    }

    /// `value` as JSONSerialization's objects, to nest in an event.
    static func encoded(_ value: some Encodable) -> Any {
        guard let data = try? JSONEncoder().encode(value), let object = try? JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed]) else {
            return NSNull()
        }
        return object
    }
}
