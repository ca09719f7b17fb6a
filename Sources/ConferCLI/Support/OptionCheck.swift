import ArgumentParser

/// Checks of option values that several commands share, so a rule and its message are
/// written once; each does nothing for an option left out (nil).
enum OptionCheck {
    /// `--fps`: above 0 and at most 240.
    static func frameRate(_ fps: Double?) throws {
        if let fps, !(fps > 0 && fps <= 240) { throw ValidationError("--fps must be between 0 and 240") }
    }

    /// A bitrate option in kbit/s (`--bitrate` unless `name` says otherwise), within `range`.
    static func bitrate(_ kbps: Int?, in range: ClosedRange<Int> = 1 ... 100_000, name: String = "--bitrate") throws {
        if let kbps, !range.contains(kbps) {
            throw ValidationError("\(name) is in kbit/s, \(range.lowerBound)…\(range.upperBound)")
        }
    }

    /// `--duration` in seconds: above 0.
    static func positiveDuration(_ seconds: Double?) throws {
        if let seconds, !(seconds > 0) { throw ValidationError("--duration must be positive") }
    }

    /// `--payload-type`: an RTP payload type, 0…127.
    static func payloadType(_ type: Int?) throws {
        if let type, !(0 ... 127).contains(type) { throw ValidationError("--payload-type must be 0…127") }
    }

    /// `--threads`: 1…16.
    static func threads(_ count: Int?) throws {
        if let count, !(1 ... 16).contains(count) { throw ValidationError("--threads must be 1…16") }
    }
}
