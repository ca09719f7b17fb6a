/// Why a media file or bitstream could not be read or written.
///
/// Every parser in ConferMedia throws this, naming the format, what was wrong and where,
/// so bad input is always an error and never a crash.
public struct MediaFileError: Error, Equatable, Sendable, CustomStringConvertible {
    /// What kind of problem it was.
    public enum Kind: String, Sendable, Codable {
        /// The data ended before a complete header or frame.
        case truncated
        /// A header or field has a value the format does not allow.
        case malformed
        /// A valid file, but of a kind Confer does not handle (say, 4:4:4 Y4M).
        case unsupported
        /// The file could not be opened, read or written.
        case io
    }
    /// What kind of problem it was.
    public let kind: Kind
    /// The format being read, such as "Y4M" or "IVF".
    public let format: String
    /// Byte offset in the input where the problem was found, when known.
    public let offset: Int?
    /// A sentence for a person: what was wrong.
    public let detail: String

    /// An error of `kind` in `format` at `offset`.
    public init(_ kind: Kind, format: String, offset: Int? = nil, _ detail: String) {
        self.kind = kind
        self.format = format
        self.offset = offset
        self.detail = detail
    }

    public var description: String {
        if let offset { return "\(format): \(detail) (at byte \(offset))" }
        return "\(format): \(detail)"
    }
}
