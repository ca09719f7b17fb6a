import ConferMedia
import ConferJobs

/// The main job: a meeting in virtual time.
///
/// Every participant (a synthetic camera and microphone by default, recorded files when
/// given) runs a real ``SendPipeline`` to the host over its own simulated path and a real
/// ``ReceivePipeline`` for what comes back. The host is a ``HostPipeline``: it decodes them
/// all, composites one canvas, encodes it once and sends it to everyone, and mixes audio per
/// listener. Participant 1's received composite and mix are written out, and its display is
/// modelled by a ``FramePacer`` (the composite view and a self view sharing the draw budget).
public enum Meeting {
    /// Runs the meeting `options` describe, writing participant 1's composite to
    /// `compositeOutput` (.ivf or .h264: the stream as it arrived; .y4m: the pictures it
    /// rendered) and its mix to `mixOutput` (.wav or .opus) when given; `progress(fraction)` is called as simulated time passes.
    public static func run(options: MeetingOptions, compositeOutput: String? = nil, mixOutput: String? = nil,
                           progress: (Double) -> Void = { _ in }) throws -> MeetingReport {
        try options.validate()
        let composite = try compositeOutput.map { path in
            try CompositeFileWriter(path: path, codec: options.codec, width: options.canvasWidth,
                                     height: options.canvasHeight, frameRate: options.frameRate)
        }
        let mix = try mixOutput.map { try AudioFileWriter(path: $0, channels: 1, bitrate: 64_000) }
        let run = try MeetingRun(options: options, composite: composite, mix: mix)
        var report = try run.run(progress: progress)
        try composite?.finish()
        try mix?.finish()
        report.compositeFile = compositeOutput
        report.mixFile = mixOutput
        return report
    }
}
