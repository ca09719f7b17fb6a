/// What the jitter buffer needs to know about an Opus packet before decoding it, read
/// from its table-of-contents byte and frame lengths (RFC 6716 §3.1–3.2).
///
/// Parsing checks every length the way libopus's `opus_packet_parse` does, so a packet
/// that passes here is one the decoder will at least try; one that fails is counted as
/// undecodable and played as a loss without reaching the decoder.
struct OpusPacketInfo: Hashable, Sendable {
    /// Samples per channel at 48 kHz (120 … 5760).
    var frameCount: Int
    /// Whether the first frame carries SILK low-bitrate redundancy (in-band FEC) for the
    /// packet before it.
    var hasFEC: Bool
    /// Whether every frame is empty: the packet libopus's DTX emits when it stops sending.
    var isDTX: Bool

    /// The longest frame RFC 6716 allows, in bytes.
    static let maximumFrameSize = 1275
    /// The longest packet, 120 ms.
    static let maximumFrameCount = 5760

    /// Reads `packet`; nil when it is not a valid Opus packet.
    static func parse(_ packet: UnsafeRawBufferPointer) -> OpusPacketInfo? {
        let length = packet.count
        guard length >= 1 else { return nil }
        let toc = packet[0]
        let config = Int(toc >> 3)
        let samplesPerFrame: Int
        switch config {
        case 0..<12: samplesPerFrame = config & 3 == 3 ? 2880 : 480 << (config & 3)  // SILK: 10, 20, 40, 60 ms
        case 12..<16: samplesPerFrame = config & 1 == 0 ? 480 : 960                   // hybrid: 10, 20 ms
        default: samplesPerFrame = 120 << (config & 3)                                // CELT: 2.5 … 20 ms
        }
        var frames = 1
        var firstOffset = 1
        var firstSize = 0
        var payloadBytes = 0
        switch toc & 3 {
        case 0:
            firstSize = length - 1
            guard firstSize <= maximumFrameSize else { return nil }
            payloadBytes = firstSize
        case 1:
            frames = 2
            guard (length - 1) % 2 == 0, (length - 1) / 2 <= maximumFrameSize else { return nil }
            firstSize = (length - 1) / 2
            payloadBytes = length - 1
        case 2:
            frames = 2
            guard let (size, used) = frameLength(packet, at: 1) else { return nil }
            firstOffset = 1 + used
            firstSize = size
            guard size <= length - firstOffset, length - firstOffset - size <= maximumFrameSize else { return nil }
            payloadBytes = length - firstOffset
        default:
            guard length >= 2 else { return nil }
            let header = packet[1]
            frames = Int(header & 0x3F)
            guard frames >= 1, frames * samplesPerFrame <= maximumFrameCount else { return nil }
            var offset = 2
            var padding = 0
            if header & 0x40 != 0 {
                while true {
                    guard offset < length else { return nil }
                    let byte = Int(packet[offset])
                    offset += 1
                    padding += byte == 255 ? 254 : byte
                    if byte != 255 { break }
                }
            }
            guard padding <= length - offset else { return nil }
            if header & 0x80 != 0 {
                var sum = 0
                for index in 0..<(frames - 1) {
                    guard let (size, used) = frameLength(packet, at: offset) else { return nil }
                    offset += used
                    if index == 0 { firstSize = size }
                    sum += size
                }
                let available = length - offset - padding
                guard available >= 0, sum <= available, available - sum <= maximumFrameSize else { return nil }
                if frames == 1 { firstSize = available }
                payloadBytes = available
            } else {
                let available = length - offset - padding
                guard available >= 0, available % frames == 0, available / frames <= maximumFrameSize else { return nil }
                firstSize = available / frames
                payloadBytes = available
            }
            firstOffset = offset
        }
        let frameCount = frames * samplesPerFrame
        guard frameCount <= maximumFrameCount else { return nil }
        var hasFEC = false
        // LBRR flags are the first range-coded bits of a SILK frame, each with probability
        // one half, so they sit in the top bits of its first byte (libopus's
        // opus_packet_has_lbrr, libwebrtc's WebRtcOpus_PacketHasFec). CELT-only packets
        // (config 16 and up) carry none.
        if config < 16, firstSize >= 1 {
            let silkFrames = samplesPerFrame > 960 ? samplesPerFrame / 960 : 1
            let byte = packet[firstOffset]
            hasFEC = (byte >> (7 - silkFrames)) & 1 != 0
            if toc & 0x04 != 0 { hasFEC = hasFEC || (byte >> (6 - 2 * silkFrames)) & 1 != 0 }
        }
        return OpusPacketInfo(frameCount: frameCount, hasFEC: hasFEC, isDTX: payloadBytes == 0)
    }

    /// A frame length in RFC 6716 §3.2.1's one- or two-byte form at `offset`.
    private static func frameLength(_ packet: UnsafeRawBufferPointer, at offset: Int) -> (size: Int, used: Int)? {
        guard offset < packet.count else { return nil }
        let first = Int(packet[offset])
        if first < 252 { return (first, 1) }
        guard offset + 1 < packet.count else { return nil }
        return (first + 4 * Int(packet[offset + 1]), 2)
    }
}
