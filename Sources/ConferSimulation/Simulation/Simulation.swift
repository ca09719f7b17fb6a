import ConferMedia
import ConferJobs

/// A call through a simulated network, in virtual time: `confer simulate`.
///
/// ```
/// input frames at their capture times ─► SendPipeline ─► NetworkLink (forward) ─► ReceivePipeline ─► recorder
///                                            ▲                                          │
///                                            └──── NetworkLink (backward): RTCP ◄────────┘
/// ```
///
/// Frame *k* of the input is captured at *k* / frame rate; 10 ms audio chunks at their
/// times; the receiver's audio is pulled every 10 ms. Both pipelines are the real ones
/// (real codecs, RTP, RTCP, jitter buffers, congestion control); only the network and the
/// clock are simulated, so a run takes as long as its encoding and decoding, far less than
/// the media lasts. The same seed and options give the same run, bit for bit.
///
/// What the receiver rendered is written frame for frame against the input (see
/// ``SimulationRecorder``), so the output has the input's frame count and timing and PSNR
/// per frame is meaningful; end-to-end delay is each rendered frame's render time minus its
/// capture time.
public enum Simulation {
    /// Runs `media` through the network `options` describe; `progress` gets the fraction
    /// done now and then (when the input's length is known).
    public static func run(_ media: SimulationMedia, options: SimulationOptions,
                           progress: (Double) -> Void = { _ in }) throws -> SimulationReport {
        try SimulationRun(media: media, options: options).run(progress: progress)
    }

    /// Runs the video file `input` (Y4M, IVF or H.264; compressed input is decoded first) and
    /// optionally the audio file `audioInput` (WAV or Ogg Opus) through the network, writing
    /// what the receiver rendered to the Y4M file `output` and, when given, what it played
    /// to `audioOutput` (WAV or Ogg Opus).
    public static func run(input: String, audioInput: String? = nil, output: String, audioOutput: String? = nil,
                           options: SimulationOptions, progress: (Double) -> Void = { _ in }) throws -> SimulationReport {
        guard fileExtension(output) == "y4m" else {
            throw JobError(.invalidOptions, "the received video is written as Y4M: name the output .y4m, not '\(output)'")
        }
        let reader = try VideoFileReader(path: input)
        guard reader.width > 0, reader.height > 0 else { throw JobError(.invalidInput, "\(input) has no picture size") }
        let audioReader = try audioInput.map { try AudioFileReader(path: $0) }
        if audioOutput != nil, audioReader == nil {
            throw JobError(.invalidOptions, "--audio-out needs an audio input (INPUT.wav)")
        }
        let (numerator, denominator) = rationalFrameRate(reader.frameRate)
        let videoWriter = try Y4MWriter(path: output, width: reader.width, height: reader.height,
                                        frameRateNumerator: numerator, frameRateDenominator: denominator)
        let channels = audioReader?.channels ?? 0
        let audioWriter = try audioOutput.map { try AudioFileWriter(path: $0, channels: channels, bitrate: nil) }
        let media = SimulationMedia(
            width: reader.width, height: reader.height, frameRate: reader.frameRate, expectedFrameCount: reader.frameCount,
            nextVideoFrame: { try reader.next() }, audioChannels: channels,
            readAudio: { frame, count in try audioReader?.read(into: &frame, frameCount: count) ?? false },
            writeVideo: { try videoWriter.write($0) },
            writeAudio: { frame in try audioWriter?.write(frame) })
        let report = try run(media, options: options, progress: progress)
        try videoWriter.finish()
        try audioWriter?.finish()
        return report
    }

    /// `fps` as a Y4M numerator and denominator: whole rates as N:1, NTSC-style rates as
    /// N·1000:1001, anything else to the millihertz.
    public static func rationalFrameRate(_ fps: Double) -> (Int, Int) {
        if fps.rounded() == fps { return (Int(fps), 1) }
        let ntsc = fps * 1001 / 1000
        if abs(ntsc.rounded() - ntsc) < 1e-3 { return (Int(ntsc.rounded()) * 1000, 1001) }
        return MediaMath.thousandthsFraction(fps)
    }
}
