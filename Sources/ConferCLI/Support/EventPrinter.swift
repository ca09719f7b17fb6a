import Foundation

/// Prints what happens in a live run: with `--events`, one JSON object per line on stdout
/// (`{"event": NAME, "t": SECONDS, …}`, `t` counted from the printer's making); otherwise,
/// unless quiet, a line per notable event on stderr for people. Meetings add their events in
/// `EventPrinter+Meeting.swift`.
final class EventPrinter: Sendable {
    let json: Bool
    let quiet: Bool
    private let start = ContinuousClock.now

    init(json: Bool, quiet: Bool) {
        self.json = json
        self.quiet = quiet
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

    /// Writes `object`, stamped with `t`, as one line on stdout.
    func line(_ object: [String: Any]) {
        var object = object
        object["t"] = (elapsed * 1000).rounded() / 1000
        guard let data = try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]) else { return }
        FileHandle.standardOutput.write(data + Data("\n".utf8))
    }

    /// `value` as JSONSerialization's objects, to nest in an event.
    static func encoded(_ value: some Encodable) -> Any {
        guard let data = try? JSONEncoder().encode(value), let object = try? JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed]) else {
            return NSNull()
        }
        return object
    }
}
