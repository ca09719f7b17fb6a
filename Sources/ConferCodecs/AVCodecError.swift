internal import CAVCodec

/// A failure of libavcodec, or a stream it decoded into something Confer cannot use.
///
/// It keeps the raw `AVERROR` code and libavcodec's own text for it (`av_strerror`).
public struct AVCodecError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What kind of failure this is; new kinds may be added.
    public struct Kind: Hashable, Sendable, CustomStringConvertible {
        private enum Base: Hashable, Sendable {
            case library, decoderUnavailable, corruptData, unsupportedPixelFormat, invalidSettings
        }
        private let base: Base

        /// libavcodec returned an error code.
        public static let library = Kind(base: .library)
        /// This libavcodec build has no H.264 decoder, or could not allocate one.
        public static let decoderUnavailable = Kind(base: .decoderUnavailable)
        /// The access unit is not decodable H.264 (found by Confer or flagged by libavcodec).
        public static let corruptData = Kind(base: .corruptData)
        /// The stream decodes to a pixel format other than 8-bit 4:2:0 (I420).
        public static let unsupportedPixelFormat = Kind(base: .unsupportedPixelFormat)
        /// The decoder settings are out of range.
        public static let invalidSettings = Kind(base: .invalidSettings)

        public var description: String {
            switch base {
            case .library: "library"
            case .decoderUnavailable: "decoder unavailable"
            case .corruptData: "corrupt data"
            case .unsupportedPixelFormat: "unsupported pixel format"
            case .invalidSettings: "invalid settings"
            }
        }
    }

    /// What kind of failure this is.
    public let kind: Kind
    /// The libavcodec function or the check that failed.
    public let operation: String
    /// The raw `AVERROR` code (negative), or 0 when libavcodec reported none.
    public let code: Int32
    /// libavcodec's text for `code` (`av_strerror`), or Confer's own account when `code` is 0.
    public let message: String

    /// An error of `kind` from `operation` with libavcodec's text for `code`.
    init(_ kind: Kind, operation: String, code: Int32) {
        self.kind = kind
        self.operation = operation
        self.code = code
        message = Self.text(for: code)
    }

    /// An error libavcodec returned: `AVERROR_INVALIDDATA` means the input was corrupt,
    /// anything else is a library failure.
    init(libraryStatus code: Int32, operation: String) {
        self.init(code == confer_averror_invaliddata() ? .corruptData : .library, operation: operation, code: code)
    }

    /// An error of `kind` that Confer found, described by `message`, with an optional code.
    init(_ kind: Kind, operation: String, code: Int32 = 0, message: String) {
        self.kind = kind
        self.operation = operation
        self.code = code
        self.message = message
    }

    /// `av_strerror`'s text for `code`.
    static func text(for code: Int32) -> String {
        withUnsafeTemporaryAllocation(of: CChar.self, capacity: 128) { buffer in
            guard let base = buffer.baseAddress else { return "AVERROR \(code)" }
            base.initialize(to: 0)
            _ = av_strerror(code, base, buffer.count)
            return String(cString: base)
        }
    }

    public var description: String { "libavcodec \(operation) failed (\(kind), code \(code)): \(message)" }
}
