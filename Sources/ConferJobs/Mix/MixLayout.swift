public import ConferMixer
import ConferMedia

/// How `confer mix` arranges its inputs: a built-in layout by name, or a custom one from a
/// JSON file (the schema of ``VideoLayout/init(json:)-(Data)``).
///
/// Input `n` (counted from 0, in command-line order) is ``ParticipantID`` `n`, so a custom
/// layout's `"participant": 2` names the third input.
public enum MixLayout: Hashable, Sendable, CustomStringConvertible {
    /// Everyone in a grid sized by the input count.
    case grid
    /// The active speaker large, the others in a filmstrip (the first input until someone speaks).
    case speaker
    /// The active speaker over the whole canvas, the first other input in a corner.
    case pictureInPicture
    /// The first input as a shared screen, the others' cameras beside it.
    case presenter
    /// A layout read from a JSON file.
    case custom(VideoLayout, path: String)

    /// The names the command line accepts besides a `.json` path.
    public static let names = ["grid", "speaker", "pip", "presenter"]

    /// The layout called `argument`: one of ``names``, or the path of a JSON layout file.
    ///
    /// Throws a ``JobError`` for an unknown name, an unreadable file or a file that is not
    /// a valid layout (naming the slot and field at fault).
    public init(argument: String) throws {
        switch argument.lowercased() {
        case "grid": self = .grid
        case "speaker", "active-speaker": self = .speaker
        case "pip", "picture-in-picture": self = .pictureInPicture
        case "presenter": self = .presenter
        default:
            guard fileExtension(argument) == "json" else {
                throw JobError(.invalidOptions, "unknown layout '\(argument)': use \(Self.names.joined(separator: ", ")) or a FILE.json")
            }
            self = .custom(try Self.readLayout(path: argument), path: argument)
        }
    }

    private static func readLayout(path: String) throws -> VideoLayout {
        let text: String
        do {
            let source = try FileByteSource(path: path)
            // Checked before reading, so a huge file is refused by its size, not loaded.
            if let length = source.length, length > VideoLayout.maximumJSONByteCount {
                throw JobError(.invalidInput, "layout file \(path) is \(length) bytes; at most \(VideoLayout.maximumJSONByteCount) are accepted")
            }
            var bytes = [UInt8](repeating: 0, count: VideoLayout.maximumJSONByteCount + 1)
            let count = try bytes.withUnsafeMutableBytes { buffer throws(MediaFileError) in try source.readUpTo(buffer) }
            text = String(decoding: bytes[..<count], as: UTF8.self)
        } catch let error as MediaFileError {
            throw JobError(.io, "cannot read layout file \(path): \(error)")
        }
        do {
            return try VideoLayout(json: text)
        } catch {
            throw JobError(.invalidInput, "layout file \(path): \(error)")
        }
    }

    /// The compositor's layout kind for inputs `participants` (in input order).
    public func kind(participants: [ParticipantID]) -> LayoutKind {
        switch self {
        case .grid: .grid()
        case .speaker: .activeSpeaker()
        case .pictureInPicture: .pictureInPicture()
        case .presenter: .presenter(participants.first ?? ParticipantID(0))
        case .custom(let layout, _): .custom(layout)
        }
    }

    /// The name or path the layout was given as.
    public var description: String {
        switch self {
        case .grid: "grid"
        case .speaker: "speaker"
        case .pictureInPicture: "pip"
        case .presenter: "presenter"
        case .custom(_, let path): path
        }
    }
}
