internal import COpus
public import ConferMedia

/// An Opus encoder over libopus: 48 kHz, mono or stereo, 10, 20, 40 or 60 ms frames.
///
/// VBR is on by default (Opus's own rate control is what WebRTC uses), in-band FEC, the
/// expected loss and DTX come from ``AudioEncoderSettings``. With DTX, silence encodes to
/// packets of one or two bytes; they are kept, since deciding what to send is the RTP
/// layer's job. Encoding writes into the output frame's buffer and allocates nothing once
/// that buffer has held one packet.
public struct OpusEncoder: ~Copyable, AudioEncoder {
    /// Errors come from libopus or from settings and frames Confer refuses.
    public typealias Failure = OpusError

    /// The settings in force (``setBitrate(_:)`` updates the bitrate).
    public private(set) var settings: AudioEncoderSettings
    /// What the encoder is tuned for.
    public let application: OpusApplication
    /// Whether the bitrate varies with the content (true by default).
    public let isVariableBitrate: Bool
    /// The encoder's look-ahead in samples per channel: how far decoded audio lags the input.
    public let lookahead: Int
    /// The largest packet the encoder writes, in bytes: one that fits an Ethernet MTU
    /// less headers would be smaller, but libopus itself never needs more than 1275 per frame.
    public static let maxPacketSize = 1500
    /// The frame durations Confer encodes, in milliseconds.
    public static let supportedFrameDurations = [10, 20, 40, 60]

    private let encoder: OpaquePointer
    private let frameDuration: TimeDelta

    /// Opens an encoder for `settings`.
    public init(settings: AudioEncoderSettings, application: OpusApplication = .voip,
                variableBitrate: Bool = true) throws(OpusError) {
        guard settings.channels == 1 || settings.channels == 2 else {
            throw OpusError(code: OPUS_BAD_ARG, context: "channel count \(settings.channels) is not 1 or 2")
        }
        guard Self.supportedFrameDurations.contains(settings.frameDurationMs) else {
            throw OpusError(code: OPUS_BAD_ARG,
                            context: "frame duration \(settings.frameDurationMs) ms is not 10, 20, 40 or 60")
        }
        var status: Int32 = OPUS_OK
        guard let encoder = opus_encoder_create(Int32(conferSampleRate), Int32(settings.channels),
                                                application.rawOpusValue, &status), status == OPUS_OK else {
            throw OpusError(code: status == OPUS_OK ? OPUS_ALLOC_FAIL : status, context: "opus_encoder_create")
        }
        var lookahead: Int32 = 0
        let configured = Self.configure(encoder, settings: settings, variableBitrate: variableBitrate)
            .flatMap { _ in Self.check(confer_opus_get_lookahead(encoder, &lookahead), "OPUS_GET_LOOKAHEAD") }
        if case .failure(let error) = configured {
            opus_encoder_destroy(encoder)
            throw error
        }
        self.encoder = encoder
        self.settings = settings
        self.application = application
        isVariableBitrate = variableBitrate
        self.lookahead = Int(lookahead)
        frameDuration = .milliseconds(Int64(settings.frameDurationMs))
    }

    deinit { opus_encoder_destroy(encoder) }

    /// Changes the target bitrate from the next frame on.
    public mutating func setBitrate(_ bitsPerSecond: Int) throws(OpusError) {
        try Self.check(confer_opus_set_bitrate(encoder, Int32(clamping: bitsPerSecond)),
                       "OPUS_SET_BITRATE \(bitsPerSecond)").get()
        settings.bitrate = bitsPerSecond
    }

    /// Encodes one frame of exactly ``AudioEncoderSettings/samplesPerFrame`` samples per
    /// channel into `output` as one Opus packet.
    public mutating func encode(_ frame: AudioFrame, into output: inout EncodedFrame) throws(OpusError) {
        guard frame.channels == settings.channels else {
            throw OpusError(code: OPUS_BAD_ARG, context: "frame has \(frame.channels) channels, the encoder takes \(settings.channels)")
        }
        let frameCount = settings.samplesPerFrame
        guard frame.frameCount == frameCount else {
            throw OpusError(code: OPUS_BAD_ARG,
                            context: "frame has \(frame.frameCount) samples per channel, the encoder takes \(frameCount)")
        }
        let capacity = Self.maxPacketSize
        // Size the buffer to the most libopus may write; it only grows the first time.
        if output.data.count < capacity {
            output.data.append(contentsOf: repeatElement(0, count: capacity - output.data.count))
        } else if output.data.count > capacity {
            output.data.removeLast(output.data.count - capacity)
        }
        let written = frame.samples.withUnsafeBufferPointer { pcm in
            output.data.withUnsafeMutableBufferPointer { packet in
                // Both buffers are non-empty here (checked frame size, sized packet).
                guard let pcm = pcm.baseAddress, let packet = packet.baseAddress else { return OPUS_BAD_ARG }
                return opus_encode(encoder, pcm, Int32(frameCount), packet, Int32(capacity))
            }
        }
        guard written > 0 else {
            output.data.removeAll(keepingCapacity: true)
            throw OpusError(code: written < 0 ? written : OPUS_INTERNAL_ERROR, context: "opus_encode")
        }
        output.data.removeLast(capacity - Int(written))
        output.codec = .opus
        output.isKeyframe = true
        output.timestamp = frame.timestamp
        output.duration = frameDuration
        output.width = 0
        output.height = 0
        output.vp8 = nil
        output.vp9 = nil
        output.nalUnits.removeAll(keepingCapacity: true)
    }

    private static func configure(_ encoder: OpaquePointer, settings: AudioEncoderSettings,
                                  variableBitrate: Bool) -> Result<Void, OpusError> {
        check(confer_opus_set_bitrate(encoder, Int32(clamping: settings.bitrate)), "OPUS_SET_BITRATE \(settings.bitrate)")
            .flatMap { check(confer_opus_set_complexity(encoder, Int32(clamping: settings.complexity)),
                             "OPUS_SET_COMPLEXITY \(settings.complexity)") }
            .flatMap { check(confer_opus_set_inband_fec(encoder, settings.inbandFEC ? 1 : 0), "OPUS_SET_INBAND_FEC") }
            .flatMap { check(confer_opus_set_packet_loss_perc(encoder, Int32(clamping: settings.expectedLossPercent)),
                             "OPUS_SET_PACKET_LOSS_PERC \(settings.expectedLossPercent)") }
            .flatMap { check(confer_opus_set_dtx(encoder, settings.dtx ? 1 : 0), "OPUS_SET_DTX") }
            .flatMap { check(confer_opus_set_vbr(encoder, variableBitrate ? 1 : 0), "OPUS_SET_VBR") }
    }

    private static func check(_ status: Int32, _ context: @autoclosure () -> String) -> Result<Void, OpusError> {
        status == OPUS_OK ? .success(()) : .failure(OpusError(code: status, context: context()))
    }
}
