import ArgumentParser

/// A picture size given as WIDTHxHEIGHT on the command line. Options take it through
/// ``parse(_:)`` (`@Option(transform: VideoSize.parse)`), so that a size refused says why:
/// an `init?(argument:)` could only make ArgumentParser say "invalid". ArgumentParser shows
/// no default for an option with a transform, so those options say theirs in their help.
struct VideoSize: Codable, Equatable, CustomStringConvertible {
    var width: Int
    var height: Int

    /// The sides a size may have: even (4:2:0 pictures halve both for the colour planes).
    static let sides = 2 ... 16384

    init(width: Int, height: Int) {
        self.width = width
        self.height = height
    }

    /// `text` as a size, or an error that says what was wrong with it.
    static func parse(_ text: String) throws -> VideoSize {
        let parts = text.lowercased().split(separator: "x", omittingEmptySubsequences: false)
        guard parts.count == 2, let width = Int(parts[0]), let height = Int(parts[1]) else {
            throw ValidationError("a size is WIDTHxHEIGHT, for example 640x360 (got \(text))")
        }
        guard sides.contains(width), sides.contains(height) else {
            throw ValidationError("each side of a size is from \(sides.lowerBound) to \(sides.upperBound) pixels (got \(text))")
        }
        guard width % 2 == 0, height % 2 == 0 else {
            let even = "\(width + width % 2)x\(height + height % 2)"
            throw ValidationError("both sides must be even: 4:2:0 pictures halve them for colour (got \(text); \(even) would do)")
        }
        return VideoSize(width: width, height: height)
    }

    var description: String { "\(width)x\(height)" }
}
