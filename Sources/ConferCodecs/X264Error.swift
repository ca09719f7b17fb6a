/// A failure of the x264 encoder, or a setting or picture it cannot take.
///
/// libx264 reports failures as a negative return code without a message, so the error
/// keeps the call that failed and its raw code, and Confer adds what it was doing.
public struct X264Error: Error, Sendable, Hashable, CustomStringConvertible {
    /// What kind of failure this is; new kinds may be added.
    public struct Kind: Hashable, Sendable, CustomStringConvertible {
        private enum Base: Hashable, Sendable { case library, invalidSettings, invalidPicture }
        private let base: Base

        /// libx264 returned an error code (or a null encoder).
        public static let library = Kind(base: .library)
        /// The settings cannot make an H.264 stream (odd size, bitrate out of range…).
        public static let invalidSettings = Kind(base: .invalidSettings)
        /// The picture handed to `encode` does not match the encoder's size.
        public static let invalidPicture = Kind(base: .invalidPicture)

        public var description: String {
            switch base {
            case .library: "library"
            case .invalidSettings: "invalid settings"
            case .invalidPicture: "invalid picture"
            }
        }
    }

    /// What kind of failure this is.
    public let kind: Kind
    /// The libx264 function or the check that failed.
    public let operation: String
    /// libx264's raw return code (0 when the failure was found before calling libx264).
    public let code: Int32
    /// What was wrong.
    public let message: String

    /// An error of `kind` from `operation`.
    public init(_ kind: Kind, operation: String, code: Int32 = 0, message: String) {
        self.kind = kind
        self.operation = operation
        self.code = code
        self.message = message
    }

    public var description: String { "x264 \(operation) failed (\(kind), code \(code)): \(message)" }
}
