import ConferClient

/// The camera, voice and output files of a call's or a meeting member's media: `confer call`
/// and `confer join` fill them alike from their `--input`, `--camera-size`, `--audio`,
/// `--output` and `--audio-out`.
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
    /// Sends `camera` (or a synthetic camera of `cameraSize`) and `microphone`, and writes
    /// what comes back to `videoOutput` and `audioOutput`.
    mutating func setFiles(camera: String?, cameraSize: VideoSize, microphone: String?, videoOutput: String?, audioOutput: String?) {
        cameraFile = camera
        cameraWidth = cameraSize.width
        cameraHeight = cameraSize.height
        microphoneFile = microphone
        self.videoOutput = videoOutput
        self.audioOutput = audioOutput
    }
}

extension CallMediaOptions: ClientMediaFiles {}
extension MeetingMediaOptions: ClientMediaFiles {}
