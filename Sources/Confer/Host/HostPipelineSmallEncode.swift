import ConferMedia
import ConferCodecs
import ConferRTP

/// The host's second encode of the composite, for participants whose links cannot carry
/// the first (``SimulcastAllocator``): the same canvas at the bitrate of the weakest of
/// them, at the size that bitrate affords (``ScalingVideoEncoder``), so they get the full
/// frame rate at a lower resolution instead of setting everyone's bitrate.
///
/// Its packets have the composite's SSRC and RTP timestamps (its writer is a copy of the
/// first encode's), its own sequence numbers and picture ids, and its own history for
/// retransmission; each participant's ``LayerForwarder`` picks one encode's frames and
/// continues that participant's numbers across a switch, so to a participant the two
/// encodes are one stream that changes size at a keyframe.
final class HostPipelineSmallEncode {
    private let encoder: ScalingVideoEncoder
    var packetizer: RTPPacketizer
    var history: RTPPacketHistory
    private(set) var encoded: EncodedFrame
    var throttle: HostPipelineKeyframeThrottle
    /// The bitrate the encoder was last set to.
    private(set) var bitrate: Int
    /// Whether it encoded the last frame time (an idle encoder's next frame must be a keyframe).
    private var wasActive = false

    private(set) var framesEncoded = 0
    private(set) var framesDropped = 0
    private(set) var keyFramesEncoded = 0

    /// A second encode of `configuration`'s canvas, writing with a copy of `packetizer`,
    /// with an empty history configured as `history` (same size, same RTX stream).
    init(configuration: HostPipelineConfiguration, bitrate: Int, packetizer: RTPPacketizer, history: RTPPacketHistory) throws {
        self.bitrate = bitrate
        let speed = configuration.codec == .vp8 ? -abs(configuration.speed) : configuration.speed
        encoder = try ScalingVideoEncoder(
            codec: configuration.codec,
            settings: VideoEncoderSettings(
                width: configuration.width, height: configuration.height, frameRate: configuration.frameRate,
                bitrate: bitrate, threads: 1, speed: speed, errorResilient: true, keyframeInterval: 0),
            allowsFrameDropping: configuration.allowsFrameDropping, adaptsResolution: true)
        self.packetizer = packetizer
        self.history = RTPPacketHistory(configuration: history.configuration, rtxSSRC: history.rtxSSRC,
                                        rtxPayloadType: history.rtxPayloadType,
                                        firstRTXSequenceNumber: history.nextRTXSequenceNumber)
        encoded = EncodedFrame(codec: configuration.codec)
        throttle = HostPipelineKeyframeThrottle(interval: configuration.keyframeRequestInterval)
    }

    /// Encodes `canvas` at `now`; false when the rate control skipped it. The first frame
    /// after a pause is a keyframe: what the participants last got of this encode is stale.
    func encode(_ canvas: VideoFrame, at now: Timestamp) throws -> Bool {
        if !wasActive || throttle.takeKeyframe(at: now) { encoder.requestKeyframe() }
        wasActive = true
        guard try encoder.encode(canvas, at: now, into: &encoded) else {
            framesDropped += 1
            return false
        }
        framesEncoded += 1
        if encoded.isKeyframe {
            keyFramesEncoded += 1
            throttle.keyframeEncoded(at: now)
        }
        return true
    }

    /// Nobody gets this encode now: it stops encoding until someone does.
    func pause() { wasActive = false }

    /// Sets the target to `bitrate` when it differs from the current one by 2 % or more.
    func setBitrate(_ bitrate: Int) {
        guard abs(bitrate - self.bitrate) * 50 >= self.bitrate else { return }
        guard (try? encoder.setBitrate(bitrate)) != nil else { return }
        self.bitrate = bitrate
    }

    /// The size it encodes at now.
    var encodedSize: (width: Int, height: Int) { encoder.encodedSize }
}
