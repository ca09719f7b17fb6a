/// What a ``TaggedID`` names: its number type and the word its description starts with.
///
/// A tag keeps ids of different things apart at compile time (a ``ViewID`` is not a
/// ``StreamID``) while they share one implementation.
public protocol IDTag: Sendable {
    /// The app's number type for the ids.
    associatedtype RawValue: FixedWidthInteger & Codable & Sendable
    /// The word before the number in ``TaggedID/description`` ("view" in "view 3").
    static var name: String { get }
}

/// A number chosen by the app that names one kind of thing, told apart by `Tag`.
///
/// Encodes as a bare number, so stats snapshots read as `"view": 3`.
public struct TaggedID<Tag: IDTag>: Hashable, Comparable, Sendable, Codable, ExpressibleByIntegerLiteral,
    CustomStringConvertible {
    /// The app's number for the thing named.
    public var rawValue: Tag.RawValue

    /// The id numbered `rawValue`.
    public init(_ rawValue: Tag.RawValue) { self.rawValue = rawValue }
    /// The id numbered by an integer literal.
    public init(integerLiteral value: Tag.RawValue.IntegerLiteralType) { rawValue = Tag.RawValue(integerLiteral: value) }

    /// Decodes a bare number.
    public init(from decoder: any Decoder) throws { rawValue = try decoder.singleValueContainer().decode(Tag.RawValue.self) }
    /// Encodes a bare number.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }

    public static func < (a: Self, b: Self) -> Bool { a.rawValue < b.rawValue }
    public var description: String { "\(Tag.name) \(rawValue)" }
}

/// The tag of ``ViewID``.
public enum ViewTag: IDTag {
    /// Views are numbered by `Int`.
    public typealias RawValue = Int
    /// "view".
    public static var name: String { "view" }
}

/// The tag of ``StreamID``.
public enum StreamTag: IDTag {
    /// Streams are numbered by `UInt64`.
    public typealias RawValue = UInt64
    /// "stream".
    public static var name: String { "stream" }
}

/// Names a render view inside one ``FramePacer``; chosen by the app (a tile index, a
/// member's slot) and unique per pacer.
public typealias ViewID = TaggedID<ViewTag>

/// Names a stream of decoded video (one participant's camera or screen share) that views
/// are bound to; the app maps its members or SSRCs to these numbers.
public typealias StreamID = TaggedID<StreamTag>
