/// Names a render view inside one ``FramePacer``; chosen by the app (a tile index, a
/// member's slot) and unique per pacer.
public struct ViewID: Hashable, Comparable, Sendable, Codable, ExpressibleByIntegerLiteral, CustomStringConvertible {
    /// The app's number for the view.
    public var rawValue: Int

    /// The view numbered `rawValue`.
    public init(_ rawValue: Int) { self.rawValue = rawValue }
    /// The view numbered by an integer literal.
    public init(integerLiteral value: Int) { rawValue = value }

    // A bare number in JSON, so stats snapshots read as `"view": 3`.
    /// Decodes a bare number.
    public init(from decoder: any Decoder) throws { rawValue = try decoder.singleValueContainer().decode(Int.self) }
    /// Encodes a bare number.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }

    public static func < (a: ViewID, b: ViewID) -> Bool { a.rawValue < b.rawValue }
    public var description: String { "view \(rawValue)" }
}

/// Names a stream of decoded video (one participant's camera or screen share) that views
/// are bound to; the app maps its members or SSRCs to these numbers.
public struct StreamID: Hashable, Comparable, Sendable, Codable, ExpressibleByIntegerLiteral, CustomStringConvertible {
    /// The app's number for the stream.
    public var rawValue: UInt64

    /// The stream numbered `rawValue`.
    public init(_ rawValue: UInt64) { self.rawValue = rawValue }
    /// The stream numbered by an integer literal.
    public init(integerLiteral value: UInt64) { rawValue = value }

    /// Decodes a bare number.
    public init(from decoder: any Decoder) throws { rawValue = try decoder.singleValueContainer().decode(UInt64.self) }
    /// Encodes a bare number.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }

    public static func < (a: StreamID, b: StreamID) -> Bool { a.rawValue < b.rawValue }
    public var description: String { "stream \(rawValue)" }
}
