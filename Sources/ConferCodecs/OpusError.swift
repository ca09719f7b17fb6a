internal import COpus

/// A failure of libopus, or a setting or packet Confer refuses before calling it.
///
/// It keeps libopus's raw error code and its text for it (`opus_strerror`), plus what
/// Confer was doing.
public struct OpusError: Error, Sendable, Hashable, CustomStringConvertible {
    /// A libopus error code.
    public struct Code: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        /// The raw `OPUS_*` value (negative).
        public let rawValue: Int32
        /// The code `rawValue`.
        public init(rawValue: Int32) { self.rawValue = rawValue }

        /// `OPUS_BAD_ARG`: a setting or argument is out of range.
        public static let badArgument = Code(rawValue: OPUS_BAD_ARG)
        /// `OPUS_BUFFER_TOO_SMALL`.
        public static let bufferTooSmall = Code(rawValue: OPUS_BUFFER_TOO_SMALL)
        /// `OPUS_INTERNAL_ERROR`.
        public static let internalError = Code(rawValue: OPUS_INTERNAL_ERROR)
        /// `OPUS_INVALID_PACKET`: the packet is corrupt.
        public static let invalidPacket = Code(rawValue: OPUS_INVALID_PACKET)
        /// `OPUS_UNIMPLEMENTED`.
        public static let unimplemented = Code(rawValue: OPUS_UNIMPLEMENTED)
        /// `OPUS_INVALID_STATE`.
        public static let invalidState = Code(rawValue: OPUS_INVALID_STATE)
        /// `OPUS_ALLOC_FAIL`.
        public static let allocationFailed = Code(rawValue: OPUS_ALLOC_FAIL)

        public var description: String { String(rawValue) }
    }

    /// libopus's error code.
    public let code: Code
    /// libopus's text for the code (`opus_strerror`).
    public let message: String
    /// The libopus call or the check that failed, and what was wrong.
    public let context: String

    /// An error with libopus's `code`, found while doing `context`.
    init(code: Int32, context: String) {
        self.code = Code(rawValue: code)
        message = String(cString: opus_strerror(code))
        self.context = context
    }

    public var description: String { "opus: \(context): \(message) (\(code))" }
}
