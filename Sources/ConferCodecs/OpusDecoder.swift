internal import COpus
public import ConferMedia

/// An Opus decoder over libopus, with packet-loss concealment and in-band FEC recovery.
///
/// Decoding goes through one scratch buffer big enough for the longest Opus packet
/// (120 ms); the returned frame's sample array is reused on the next call when the caller
/// no longer holds it, so steady-state decoding allocates nothing.
public struct OpusDecoder: ~Copyable, AudioDecoder {
    /// Errors come from libopus (a corrupt packet is ``OpusError/Code/invalidPacket``).
    public typealias Failure = OpusError

    /// Output channel count: 1 or 2 (libopus up- or down-mixes packets to it).
    public let channels: Int
    /// The most samples per channel one packet can hold: 120 ms at 48 kHz.
    public static let maxFrameCount = conferSampleRate * 120 / 1000

    private let decoder: OpaquePointer
    private let scratch: UnsafeMutablePointer<Int16>
    private var samples: [Int16] = []

    /// Opens a decoder that outputs `channels` channels at 48 kHz.
    public init(channels: Int = 1) throws(OpusError) {
        guard channels == 1 || channels == 2 else {
            throw OpusError(code: OPUS_BAD_ARG, context: "channel count \(channels) is not 1 or 2")
        }
        var status: Int32 = OPUS_OK
        guard let decoder = opus_decoder_create(Int32(conferSampleRate), Int32(channels), &status), status == OPUS_OK else {
            throw OpusError(code: status == OPUS_OK ? OPUS_ALLOC_FAIL : status, context: "opus_decoder_create")
        }
        self.decoder = decoder
        self.channels = channels
        scratch = .allocate(capacity: Self.maxFrameCount * channels)
        samples.reserveCapacity(Self.maxFrameCount * channels)
    }

    deinit {
        opus_decoder_destroy(decoder)
        scratch.deallocate()
    }

    /// Decodes one packet into a frame stamped with the packet's timestamp.
    public mutating func decode(_ packet: EncodedFrame) throws(OpusError) -> AudioFrame {
        try decode(packet.data, frameCount: Self.maxFrameCount, fec: false, timestamp: packet.timestamp, context: "opus_decode")
    }

    /// Synthesizes `durationMs` of audio for a lost packet (libopus's concealment).
    ///
    /// `durationMs` is the lost packet's duration, from 5 to 120 ms in multiples of 2.5 ms
    /// (libopus refuses other lengths with ``OpusError/Code/badArgument``).
    public mutating func concealLoss(durationMs: Int, timestamp: Timestamp) throws(OpusError) -> AudioFrame {
        let frameCount = try Self.frameCount(durationMs)
        return try run(nil, frameCount: frameCount, fec: false, timestamp: timestamp, context: "opus_decode (concealment)")
    }

    /// Recovers a lost packet of `durationMs` from the FEC data carried by `next`, the
    /// packet after it. When `next` carries none, libopus conceals the loss instead.
    public mutating func decodeFEC(from next: EncodedFrame, durationMs: Int, timestamp: Timestamp) throws(OpusError) -> AudioFrame {
        let frameCount = try Self.frameCount(durationMs)
        return try decode(next.data, frameCount: frameCount, fec: true, timestamp: timestamp, context: "opus_decode (FEC)")
    }

    /// Forgets decoder history, as at the start of a new stream.
    public mutating func reset() throws(OpusError) {
        let status = confer_opus_decoder_reset(decoder)
        guard status == OPUS_OK else { throw OpusError(code: status, context: "OPUS_RESET_STATE") }
    }

    private mutating func decode(_ data: [UInt8], frameCount: Int, fec: Bool, timestamp: Timestamp,
                                 context: String) throws(OpusError) -> AudioFrame {
        // libopus takes an empty packet as a loss; a caller handing one over has a bug or
        // a corrupt stream, and concealment must be asked for explicitly.
        guard !data.isEmpty, data.count <= Int(Int32.max) else {
            throw OpusError(code: OPUS_INVALID_PACKET, context: "\(context): packet of \(data.count) bytes")
        }
        return try data.withUnsafeBufferPointer { (bytes) throws(OpusError) -> AudioFrame in
            try run(bytes, frameCount: frameCount, fec: fec, timestamp: timestamp, context: context)
        }
    }

    private mutating func run(_ data: UnsafeBufferPointer<UInt8>?, frameCount: Int, fec: Bool, timestamp: Timestamp,
                              context: @autoclosure () -> String) throws(OpusError) -> AudioFrame {
        let decodedCount = opus_decode(decoder, data?.baseAddress, Int32(data?.count ?? 0), scratch,
                                       Int32(frameCount), fec ? 1 : 0)
        guard decodedCount >= 0 else { throw OpusError(code: decodedCount, context: context()) }
        samples.removeAll(keepingCapacity: true)
        samples.append(contentsOf: UnsafeBufferPointer(start: scratch, count: Int(decodedCount) * channels))
        return AudioFrame(samples: samples, channels: channels, timestamp: timestamp)
    }

    private static func frameCount(_ durationMs: Int) throws(OpusError) -> Int {
        guard (1...120).contains(durationMs) else {
            throw OpusError(code: OPUS_BAD_ARG, context: "lost duration \(durationMs) ms is outside 1…120 ms")
        }
        return conferSampleRate * durationMs / 1000
    }
}
