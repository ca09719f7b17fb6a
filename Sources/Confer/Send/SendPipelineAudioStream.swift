import ConferMedia
import ConferCodecs
package import ConferRTP

/// The audio half of a ``SendPipeline``: gathers samples into Opus frames, encodes and
/// sends one packet per frame.
package final class SendPipelineAudioStream {
    let configuration: SendPipelineConfiguration.Audio
    private var encoder: OpusEncoder
    package private(set) var packetizer: RTPPacketizer
    /// Samples gathered for the next Opus frame; its timestamp is its first sample's capture time.
    private var pending: AudioFrame
    private var pendingFrames = 0
    private var encoded = EncodedFrame(codec: .opus)
    private let maxPayloadSize: Int
    private(set) var statistics = AudioSendStatistics()

    init(configuration: SendPipelineConfiguration.Audio, pipeline: SendPipelineConfiguration, transport: SendPipelineTransport,
         random: inout SeededRandom) throws {
        self.configuration = configuration
        guard configuration.settings.channels == 1 || configuration.settings.channels == 2 else {
            throw SendPipelineError(.invalidConfiguration, "audio has 1 or 2 channels, not \(configuration.settings.channels)")
        }
        encoder = try OpusEncoder(settings: configuration.settings)
        packetizer = try RTPPacketizer(
            stream: .opus, ssrc: configuration.ssrc, payloadType: configuration.payloadType, random: &random,
            transportSequenceNumberID: pipeline.transportSequenceNumberID, absoluteSendTimeID: pipeline.absoluteSendTimeID,
            marksTalkspurts: true, error: { SendPipelineError(.invalidConfiguration, $0) })
        pending = AudioFrame(silenceOf: configuration.settings.samplesPerFrame, channels: configuration.settings.channels)
        maxPayloadSize = transport.maximumRTPSize - packetizer.headerSize
    }

    /// Takes `frame`'s samples (any count; its timestamp is its first sample's capture
    /// time) and sends a packet for every Opus frame they complete.
    func send(_ frame: AudioFrame, at now: Timestamp, transport: SendPipelineTransport) throws {
        let channels = configuration.settings.channels
        guard frame.channels == channels else {
            throw SendPipelineError(.wrongInput, "a \(frame.channels)-channel frame reached a \(channels)-channel audio stream")
        }
        let frameLength = configuration.settings.samplesPerFrame
        var consumed = 0
        while consumed < frame.frameCount {
            if pendingFrames == 0 {
                pending.timestamp = frame.timestamp + TimeDelta(microseconds: Int64(consumed) * 1_000_000 / Int64(conferSampleRate))
            }
            let count = min(frameLength - pendingFrames, frame.frameCount - consumed)
            for index in 0 ..< count * channels {
                pending.samples[pendingFrames * channels + index] = frame.samples[consumed * channels + index]
            }
            pendingFrames += count
            consumed += count
            if pendingFrames == frameLength {
                try encodeAndSend(at: now, transport: transport)
                pendingFrames = 0
            }
        }
    }

    private func encodeAndSend(at now: Timestamp, transport: SendPipelineTransport) throws {
        try encoder.encode(pending, into: &encoded)
        statistics.framesEncoded += 1
        let sent = try transport.send(encoded, with: &packetizer, rtpTimestamp: packetizer.rtpTimestamp(at: pending.timestamp),
                                      captureTime: pending.timestamp, maxPayloadSize: maxPayloadSize, at: now)
        statistics.packetsSent += sent.packets
        statistics.bytesSent += sent.bytes
    }
}
