import ArgumentParser
import ConferMedia
import ConferNet
import ConferSimulation

/// `--member N:KEY=VALUE,…`: one participant's own network conditions, over the meeting's.
///
/// Keys `bandwidth` (kbit/s), `delay` (ms), `jitter` (ms, normal) and `loss` (percent)
/// set both ways; prefixed `up-` or `down-` they set one way. For example
/// `--member 9:down-bandwidth=300` puts participant 9 behind a 300 kbit/s downlink and
/// `--member 3:jitter=40,loss=5` gives participant 3 a poor path both ways.
struct MemberPathArgument {
    /// The participant, from 1.
    var member: Int
    /// What to set: (uplink?, downlink?, key, value).
    var settings: [(up: Bool, down: Bool, key: String, value: Double)]

    static let keys = ["bandwidth", "delay", "jitter", "loss"]

    init(parsing text: String) throws(ValidationError) {
        let usage = "--member takes N:KEY=VALUE,… with KEY one of bandwidth, delay, jitter, loss, optionally up- or down-, e.g. 9:down-bandwidth=300 (got \(text))"
        let parts = text.split(separator: ":", maxSplits: 1)
        guard parts.count == 2, let member = Int(parts[0]), member >= 1 else { throw ValidationError(usage) }
        self.member = member
        settings = []
        for item in parts[1].split(separator: ",") {
            let pair = item.split(separator: "=")
            guard pair.count == 2, let value = Double(pair[1]), value.isFinite, value >= 0 else { throw ValidationError(usage) }
            var key = String(pair[0]).lowercased()
            var up = true, down = true
            if key.hasPrefix("up-") { key.removeFirst(3); down = false }
            else if key.hasPrefix("down-") { key.removeFirst(5); up = false }
            guard Self.keys.contains(key) else { throw ValidationError(usage) }
            switch key {
            case "bandwidth" where value < 8 || value > 10_000_000:
                throw ValidationError("--member \(member): a bandwidth of \(value) kbit/s is outside 8…10,000,000")
            case "loss" where value > 100:
                throw ValidationError("--member \(member): a loss of \(value) % is over 100")
            case "delay" where value > 10_000, "jitter" where value > 10_000:
                throw ValidationError("--member \(member): a \(key) of \(value) ms is over 10 s")
            default: break
            }
            settings.append((up, down, key, value))
        }
        guard !settings.isEmpty else { throw ValidationError(usage) }
    }

    /// The member's path: the meeting's `uplink` and `downlink` with these settings applied.
    func path(uplink: NetworkConditions, downlink: NetworkConditions) -> MeetingMemberPath {
        var path = MeetingMemberPath(uplink: uplink, downlink: downlink)
        for setting in settings {
            if setting.up { Self.apply(setting.key, setting.value, to: &path.uplink) }
            if setting.down { Self.apply(setting.key, setting.value, to: &path.downlink) }
        }
        return path
    }

    private static func apply(_ key: String, _ value: Double, to conditions: inout NetworkConditions) {
        switch key {
        case "bandwidth": conditions.bandwidth = Int(value * 1000)
        case "delay": conditions.delay = .seconds(value / 1000)
        case "jitter": conditions.jitter = .normal(.seconds(value / 1000))
        default: conditions.loss = value / 100
        }
    }
}
