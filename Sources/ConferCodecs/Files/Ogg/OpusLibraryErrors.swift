internal import COpus
import ConferMedia

/// Maps libopusfile return codes to ``MediaFileError``, keeping the raw code
/// and the library's name for it in the detail so nothing the library said is lost.
enum OpusLibraryErrors {
    static let format = "Ogg Opus"

    /// An error from libopusfile (`OP_*`), raised while `action`.
    static func decoder(_ code: Int32, _ action: String, offset: Int? = nil) -> MediaFileError {
        let (kind, name): (MediaFileError.Kind, String) = switch code {
        case OP_HOLE: (.malformed, "OP_HOLE: a gap or corrupt page in the data")
        case OP_EREAD: (.io, "OP_EREAD: the underlying read failed")
        case OP_EFAULT: (.io, "OP_EFAULT: internal library failure or out of memory")
        case OP_EIMPL: (.unsupported, "OP_EIMPL: a feature the library does not implement")
        case OP_EINVAL: (.malformed, "OP_EINVAL: invalid argument or state")
        case OP_ENOTFORMAT: (.malformed, "OP_ENOTFORMAT: not an Ogg Opus stream")
        case OP_EBADHEADER: (.malformed, "OP_EBADHEADER: a required header packet is missing or corrupt")
        case OP_EVERSION: (.unsupported, "OP_EVERSION: unknown Opus header version")
        case OP_ENOTAUDIO: (.unsupported, "OP_ENOTAUDIO: the stream is not audio")
        case OP_EBADPACKET: (.malformed, "OP_EBADPACKET: an audio packet failed to decode")
        case OP_EBADLINK: (.malformed, "OP_EBADLINK: a link in a chained stream could not be found")
        case OP_ENOSEEK: (.io, "OP_ENOSEEK: the stream is not seekable")
        case OP_EBADTIMESTAMP: (.malformed, "OP_EBADTIMESTAMP: granule positions do not add up")
        default: (.malformed, "unknown libopusfile error")
        }
        return MediaFileError(kind, format: format, offset: offset, "libopusfile error \(code) (\(name)) while \(action)")
    }
}
