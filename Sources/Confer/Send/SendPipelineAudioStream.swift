public import ConferMedia
public import ConferCodecs
public import ConferRTP

/// The audio half of a ``SendPipeline``: gathers samples into Opus frames, encodes and
/// sends one packet per frame.
package final class SendPipelineAudioStream {
    let configuration: SendPipelineConfiguration.Audio
    private var encoder: OpusEncoder
    private var payloader = OpusPayloader(marksTalkspurts: true)
    package private(set) var writer: SendPipelinePacketWriter
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
            throw SendPipelineError("audio has 1 or 2 channels, not \(configuration.settings.channels)")
        }
        encoder = try OpusEncoder(settings: configuration.settings)
        writer = try SendPipelinePacketWriter(
            ssrc: configuration.ssrc, payloadType: configuration.payloadType, clockRate: Codec.opus.rtpClockRate,
            transportSequenceNumberID: pipeline.transportSequenceNumberID, absoluteSendTimeID: pipeline.absoluteSendTimeID,
            firstSequenceNumber: UInt16(truncatingIfNeeded: random.next()),
            timestampOffset: UInt32(truncatingIfNeeded: random.next()))
        pending = AudioFrame(silenceOf: configuration.settings.samplesPerFrame, channels: configuration.settings.channels)
        maxPayloadSize = transport.maximumRTPSize - writer.headerSize
    }

    /// Takes `frame`'s samples (any count; its timestamp is its first sample's capture
    /// time) and sends a packet for every Opus frame they complete.
    func send(_ frame: AudioFrame, at now: Timestamp, transport: SendPipelineTransport) throws {
        let channels = configuration.settings.channels
        guard frame.channels == channels else {
            throw SendPipelineError("a \(frame.channels)-channel frame reached a \(channels)-channel audio stream")
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
        let rtpTimestamp = writer.rtpTimestamp(at: pending.timestamp)
        let captureTime = pending.timestamp
        let buffer = transport.buffer
        let transportOffset = writer.transportSequenceOffset
        let sendTimeOffset = writer.absoluteSendTimeOffset
        do {
            try payloader.payload(encoded, maxPayloadSize: maxPayloadSize) { payload, marker in
                let length = writer.write(payload: payload, marker: marker, rtpTimestamp: rtpTimestamp,
                                          captureTime: captureTime, into: buffer)
                transport.sendRTP(length: length, transportSequenceOffset: transportOffset,
                                  absoluteSendTimeOffset: sendTimeOffset, at: now)
                statistics.packetsSent += 1
                statistics.bytesSent += length
            }
        } catch {
            throw error.payloadError
        }
    }
}
