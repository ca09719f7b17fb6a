internal import CVPX

/// A failure reported by libvpx (or caught before calling it), with libvpx's own code and words.
///
/// The raw `vpx_codec_err_t` value is kept in ``code`` so nothing libvpx said is lost;
/// ``operation`` says which step failed, and ``detail`` carries libvpx's per-context
/// detail string (for example "Truncated packet or corrupt partition 0 length").
public struct VPXError: Error, Sendable, Hashable, CustomStringConvertible {
    /// A libvpx status code (`vpx_codec_err_t`). A struct rather than an enum so codes a later
    /// libvpx adds still round-trip.
    public struct Code: RawRepresentable, Sendable, Hashable {
        /// The raw `vpx_codec_err_t` value.
        public let rawValue: Int32
        /// A code from its raw `vpx_codec_err_t` value.
        public init(rawValue: Int32) { self.rawValue = rawValue }

        /// `VPX_CODEC_ERROR`: an unspecified library error.
        public static let error = Code(rawValue: Int32(VPX_CODEC_ERROR.rawValue))
        /// `VPX_CODEC_MEM_ERROR`: memory allocation failed.
        public static let memoryError = Code(rawValue: Int32(VPX_CODEC_MEM_ERROR.rawValue))
        /// `VPX_CODEC_ABI_MISMATCH`: headers and library disagree.
        public static let abiMismatch = Code(rawValue: Int32(VPX_CODEC_ABI_MISMATCH.rawValue))
        /// `VPX_CODEC_INCAPABLE`: the codec cannot do what was asked.
        public static let incapable = Code(rawValue: Int32(VPX_CODEC_INCAPABLE.rawValue))
        /// `VPX_CODEC_UNSUP_BITSTREAM`: the data is not a bitstream this decoder reads.
        public static let unsupportedBitstream = Code(rawValue: Int32(VPX_CODEC_UNSUP_BITSTREAM.rawValue))
        /// `VPX_CODEC_UNSUP_FEATURE`: the bitstream uses a feature this build lacks.
        public static let unsupportedFeature = Code(rawValue: Int32(VPX_CODEC_UNSUP_FEATURE.rawValue))
        /// `VPX_CODEC_CORRUPT_FRAME`: the frame is corrupt or truncated.
        public static let corruptFrame = Code(rawValue: Int32(VPX_CODEC_CORRUPT_FRAME.rawValue))
        /// `VPX_CODEC_INVALID_PARAM`: a parameter or setting is out of range.
        public static let invalidParameter = Code(rawValue: Int32(VPX_CODEC_INVALID_PARAM.rawValue))
    }

    /// The step that failed. A struct over a private enum so steps can be added later
    /// without breaking callers' exhaustive switches.
    public struct Operation: Sendable, Hashable, CustomStringConvertible {
        private enum Step: String, Sendable, Hashable {
            case encoderInit = "encoder init"
            case decoderInit = "decoder init"
            case configure
            case control
            case encode
            case decode
        }
        private let step: Step
        private init(_ step: Step) { self.step = step }

        /// Opening an encoder (`vpx_codec_enc_config_default`, `vpx_codec_enc_init`).
        public static let encoderInit = Operation(.encoderInit)
        /// Opening a decoder (`vpx_codec_dec_init`).
        public static let decoderInit = Operation(.decoderInit)
        /// Changing encoder settings (`vpx_codec_enc_config_set`).
        public static let configure = Operation(.configure)
        /// Setting a codec control (`vpx_codec_control_`).
        public static let control = Operation(.control)
        /// Encoding a frame (`vpx_codec_encode`).
        public static let encode = Operation(.encode)
        /// Decoding a frame (`vpx_codec_decode`, or a check on its output).
        public static let decode = Operation(.decode)

        public var description: String { step.rawValue }
    }

    /// libvpx's status code.
    public let code: Code
    /// libvpx's text for the code (`vpx_codec_err_to_string`).
    public let message: String
    /// libvpx's detail for this context (`vpx_codec_error_detail`) or Confer's own explanation
    /// when the failure was caught before calling libvpx.
    public let detail: String?
    /// What was being done.
    public let operation: Operation

    /// An error with libvpx's text for `code`.
    public init(code: Code, operation: Operation, detail: String?) {
        self.code = code
        self.operation = operation
        self.detail = detail
        message = String(cString: vpx_codec_err_to_string(vpx_codec_err_t(rawValue: UInt32(bitPattern: code.rawValue))))
    }

    /// An error for `status` returned by a call on `context`, with the context's detail string.
    init(_ status: vpx_codec_err_t, operation: Operation, context: UnsafeMutablePointer<vpx_codec_ctx_t>?) {
        let detail = context.flatMap { vpx_codec_error_detail($0) }.map { String(cString: $0) }
        self.init(code: Code(rawValue: Int32(bitPattern: status.rawValue)), operation: operation, detail: detail)
    }

    public var description: String {
        var text = "libvpx \(operation) failed: \(message) (code \(code.rawValue))"
        if let detail { text += ": \(detail)" }
        return text
    }
}
