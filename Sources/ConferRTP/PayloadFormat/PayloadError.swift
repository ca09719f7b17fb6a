public import ConferMedia

/// Why an RTP payload could not be read, or a frame could not be packetized.
///
/// Depacketizers throw it for malformed payload descriptors and aggregation headers,
/// naming the codec, the field and the byte offset in the payload where the problem was
/// found, so a hostile packet is always a typed error and never a crash. Payloaders throw
/// it when a frame cannot be split within the payload size they were given.
public struct PayloadError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What kind of problem it was. A struct over a private enum so kinds can be added
    /// without breaking callers that switch over them.
    public struct Reason: Hashable, Sendable, CustomStringConvertible {
        private enum Kind: String, Hashable, Sendable {
            case truncated, invalid, unsupported, doesNotFit, outOfBounds
        }
        private let kind: Kind

        /// The payload ended before the field was complete.
        public static let truncated = Reason(kind: .truncated)
        /// The field has a value the payload format does not allow.
        public static let invalid = Reason(kind: .invalid)
        /// The field is valid but names something Confer does not handle (say, H.264 STAP-B).
        public static let unsupported = Reason(kind: .unsupported)
        /// The frame (or a part that cannot be split) does not fit the maximum payload size.
        public static let doesNotFit = Reason(kind: .doesNotFit)
        /// Frame metadata (NAL unit ranges) points outside the frame's data.
        public static let outOfBounds = Reason(kind: .outOfBounds)

        /// A sentence for a person.
        public var description: String { kind.rawValue }
    }

    /// The payload format that failed.
    public let codec: Codec
    /// The field that was wrong, as the RFC names it ("PictureID", "STAP-A NALU size", …).
    public let field: String
    /// Byte offset in the payload (or, for a payloader, in the frame's data) where the problem was found.
    public let offset: Int
    /// What kind of problem it was.
    public let reason: Reason

    /// An error in `codec`'s `field` at byte `offset`.
    public init(_ reason: Reason, codec: Codec, field: String, offset: Int) {
        self.reason = reason
        self.codec = codec
        self.field = field
        self.offset = offset
    }

    /// A sentence for a person.
    public var description: String { "\(codec) payload: \(field) \(reason) at byte \(offset)" }
}

/// Why a ``Payloader`` stopped: either the frame could not be packetized (checked before any
/// payload is emitted) or the caller's `emit` closure threw.
public enum PayloaderFailure<EmitFailure: Error>: Error {
    /// The frame cannot be packetized; nothing was emitted.
    case payload(PayloadError)
    /// The caller's closure threw this; the payloads before it were emitted.
    case emit(EmitFailure)
}

extension PayloaderFailure {
    /// Throws unless `frame` has data: no payload format packetizes an empty frame.
    static func requireData(of frame: EncodedFrame, codec: Codec) throws(PayloaderFailure) {
        guard !frame.data.isEmpty else {
            throw .payload(PayloadError(.invalid, codec: codec, field: "frame data (empty)", offset: 0))
        }
    }
}

extension PayloaderFailure where EmitFailure == Never {
    /// The payload error, when the closure cannot throw.
    public var payloadError: PayloadError {
        switch self {
        case .payload(let error): error
        }
    }
}
