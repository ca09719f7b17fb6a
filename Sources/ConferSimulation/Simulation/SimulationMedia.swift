public import ConferMedia

/// Where a ``Simulation``'s media comes from and where what the receiver rendered goes.
public struct SimulationMedia {
    /// Picture width of the input.
    public var width: Int
    /// Picture height of the input.
    public var height: Int
    /// Input frames per second: frame *k* is captured at *k* / `frameRate` seconds.
    public var frameRate: Double
    /// How many frames the input has, when known (for progress).
    public var expectedFrameCount: Int?
    /// The next input picture, or nil at the end.
    public var nextVideoFrame: () throws -> VideoFrame?
    /// Channels of the input audio; 0 for none.
    public var audioChannels: Int
    /// Reads up to the given number of 48 kHz sample frames into the frame; false at the end.
    public var readAudio: (inout AudioFrame, Int) throws -> Bool
    /// Receives each output picture, one per input frame (see ``SimulationRecorder``).
    public var writeVideo: (VideoFrame) throws -> Void
    /// Receives the audio the receiver played, 10 ms at a time.
    public var writeAudio: (AudioFrame) throws -> Void

    /// Media with the given input and output; without audio by default, and with output
    /// thrown away.
    public init(width: Int, height: Int, frameRate: Double, expectedFrameCount: Int? = nil,
                nextVideoFrame: @escaping () throws -> VideoFrame?, audioChannels: Int = 0,
                readAudio: @escaping (inout AudioFrame, Int) throws -> Bool = { _, _ in false },
                writeVideo: @escaping (VideoFrame) throws -> Void = { _ in },
                writeAudio: @escaping (AudioFrame) throws -> Void = { _ in }) {
        self.width = width
        self.height = height
        self.frameRate = frameRate
        self.expectedFrameCount = expectedFrameCount
        self.nextVideoFrame = nextVideoFrame
        self.audioChannels = audioChannels
        self.readAudio = readAudio
        self.writeVideo = writeVideo
        self.writeAudio = writeAudio
    }
}
