import ConferClient

/// The camera, voice and output files of a call's or a meeting member's media: `confer call`
/// and `confer join` fill them alike from their ``MediaFileOptions``.
protocol ClientMediaFiles {
    /// A recorded camera, or nil for a synthetic one.
    var cameraFile: String? { get set }
    /// The synthetic camera's width.
    var cameraWidth: Int { get set }
    /// The synthetic camera's height.
    var cameraHeight: Int { get set }
    /// A recorded voice, or nil for a tone.
    var microphoneFile: String? { get set }
    /// Where to write the video received.
    var videoOutput: String? { get set }
    /// Where to write the audio played.
    var audioOutput: String? { get set }
}

extension ClientMediaFiles {
    /// Sends `files`' camera (or a synthetic one of its size) and voice, and writes what
    /// comes back to its outputs.
    mutating func setFiles(_ files: MediaFileOptions) {
        cameraFile = files.input
        cameraWidth = files.cameraSize.width
        cameraHeight = files.cameraSize.height
        microphoneFile = files.audio
        videoOutput = files.output
        audioOutput = files.audioOut
    }
}

extension CallMediaOptions: ClientMediaFiles {}
extension MeetingMediaOptions: ClientMediaFiles {}
