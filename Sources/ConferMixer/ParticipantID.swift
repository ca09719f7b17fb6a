/// Names one participant of a meeting inside the mixer: a small number the host assigns.
///
/// A value of its own type, not a bare integer, so a participant cannot be confused with a
/// slot index or an SSRC. Encodes as a bare JSON number (as in a custom layout's
/// `"participant": 7`).
public struct ParticipantID: Hashable, Comparable, Sendable, Codable, ExpressibleByIntegerLiteral,
    CustomStringConvertible {
    /// The number the host assigned.
    public var rawValue: UInt32

    /// The participant numbered `rawValue`.
    public init(_ rawValue: UInt32) { self.rawValue = rawValue }

    /// The participant with this literal number, so tests and examples can write `7`.
    public init(integerLiteral value: UInt32) { self.init(value) }

    /// Decodes a bare number.
    public init(from decoder: any Decoder) throws {
        rawValue = try decoder.singleValueContainer().decode(UInt32.self)
    }

    /// Encodes a bare number.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }

    public static func < (a: ParticipantID, b: ParticipantID) -> Bool { a.rawValue < b.rawValue }

    public var description: String { "participant \(rawValue)" }
}
