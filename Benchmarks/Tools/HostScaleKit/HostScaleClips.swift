// Participants' VP8 streams for the host-scale measurements, encoded up front (untimed).
import Dispatch
import Synchronization
import ConferMedia
import ConferCodecs
import Confer

/// What each participant's camera shows.
public enum HostScaleContent: String, Sendable, CaseIterable {
    /// The moving test card (easy to encode and decode, like a still talking head).
    case card
    /// Panning noise with fresh grain every frame (hard: the worst case for the decoders).
    case noise
}

/// N distinct VP8 640×360 30 fps streams, one per participant, each starting with its only
/// keyframe, encoded realtime cpu-used 8 at 800 kbit/s the way a participant would send them.
public struct HostScaleClips: Sendable {
    /// Picture size and rate of every participant's camera.
    public static let (width, height, frameRate) = (640, 360, 30.0)
    /// The size the clips are encoded at (the camera's, or smaller for a small tile).
    public let size: (width: Int, height: Int)
    /// Each participant's frames, in decode order.
    public let streams: [[EncodedFrame]]
    /// What they show.
    public let content: HostScaleContent
    /// 1 when every camera frame is sent, 2 when every other one is (a half-rate tile).
    public let frameRateDivisor: Int

    /// Encodes `participants` clips of `frames` frames each, two participants at a time, at
    /// `size` and `bitrate` (the camera's full size at 800 kbit/s unless given), every
    /// `frameRateDivisor`-th camera frame.
    public init(participants: Int, frames: Int, content: HostScaleContent,
                size: (width: Int, height: Int) = (width, height), bitrate: Int = 800_000, frameRateDivisor: Int = 1) throws {
        let results = Mutex([[EncodedFrame]?](repeating: nil, count: participants))
        let failure = Mutex<(any Error)?>(nil)
        DispatchQueue.concurrentPerform(iterations: participants) { i in
            do {
                let stream = try Self.encode(participant: i, frames: frames, content: content, size: size, bitrate: bitrate,
                                             frameRateDivisor: frameRateDivisor)
                results.withLock { $0[i] = stream }
            } catch {
                failure.withLock { $0 = error }
            }
        }
        if let error = failure.withLock({ $0 }) { throw error }
        streams = results.withLock { $0.map { $0 ?? [] } }
        self.content = content
        self.size = size
        self.frameRateDivisor = frameRateDivisor
    }

    /// The size, bitrate and frame-rate divisor a participant's 640×360 camera is asked for
    /// and encodes at when the host shows it in one of `participants` grid tiles on a
    /// 1280×720 canvas: the REMB a host with ``HostPipelineConfiguration/requestsSlotBitrates``
    /// sends (at the tile's frame rate, ``HostPipeline/slotFrameRate(_:canvasWidth:canvasHeight:frameRate:)``)
    /// and the step the camera's ``VideoResolutionLadder`` takes at that bitrate.
    public static func slotSized(participants: Int) -> (size: (width: Int, height: Int), bitrate: Int, frameRateDivisor: Int) {
        let columns = Int(Double(participants).squareRoot().rounded(.up))
        let rows = (participants + columns - 1) / columns
        let tile = PixelRect(width: 1280 / columns, height: 720 / rows)
        let tileRate = HostPipeline.slotFrameRate(tile, canvasWidth: 1280, canvasHeight: 720, frameRate: frameRate)
        let bitrate = VideoResolutionLadder.bitrate(forShowing: tile.width, height: tile.height, frameRate: tileRate)
        let step = VideoResolutionLadder(width: width, height: height, frameRate: frameRate, startBitrate: bitrate,
                                         reducesFrameRate: true).current
        return ((step.width, step.height), min(bitrate, 800_000), step.frameRateDivisor)
    }

    /// Participant `index`'s clip: its own colour and motion (card) or its own texture (noise).
    static func encode(participant index: Int, frames: Int, content: HostScaleContent, size: (width: Int, height: Int),
                       bitrate: Int, frameRateDivisor: Int) throws -> [EncodedFrame] {
        let (width, height) = size
        let settings = VideoEncoderSettings(width: width, height: height, frameRate: frameRate / Double(frameRateDivisor), bitrate: bitrate,
                                            threads: 1, speed: 8, errorResilient: true)
        let encoder = try VPXEncoder(codec: .vp8, settings: settings, allowsFrameDropping: false)
        var card = TestPatternSource(width: width, height: height, colorIndex: index, seed: UInt64(index + 1))
        var noise = content == .noise ? NoisePatternSource(width: width, height: height, seed: UInt64(index + 1)) : nil
        var stream: [EncodedFrame] = []
        stream.reserveCapacity(frames)
        for frame in 0..<frames {
            let picture = noise != nil ? noise!.next() : card.next()
            guard frame % frameRateDivisor == 0 else { continue }
            var output = EncodedFrame(codec: .vp8)
            if try encoder.encode(picture, into: &output) { stream.append(output) }
        }
        return stream
    }
}

/// One participant as the host sees it: its stream, played in a loop, through its own
/// VP8 decoder. Output frame k decodes stream frame k modulo the clip length; looping
/// restarts at the keyframe, so the decoder never loses sync.
public final class HostScaleParticipant: CompositeSource {
    private let frames: [EncodedFrame]
    private let decoder: VPXDecoder

    private let frameRateDivisor: Int

    /// A participant sending `frames`, one every `frameRateDivisor` output frames.
    public init(frames: [EncodedFrame], frameRateDivisor: Int = 1) throws {
        precondition(!frames.isEmpty && frames[0].isKeyframe, "a participant's clip starts with a keyframe")
        self.frames = frames
        self.frameRateDivisor = frameRateDivisor
        decoder = try VPXDecoder(codec: .vp8, threads: 1)
    }

    /// Decodes the stream frame of output frame `index` (modulo the clip length), stamped
    /// `time`; nil (keep the last picture) between the frames of a half-rate stream.
    public func picture(forFrame index: Int, at time: Timestamp) throws -> VideoFrame? {
        guard index % frameRateDivisor == 0 else { return nil }
        var picture = try decoder.decode(frames[index / frameRateDivisor % frames.count])
        picture?.timestamp = time
        return picture
    }
}
