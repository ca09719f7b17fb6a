import FuzzSupport
// libFuzzer target: a stream of hostile packets into a VideoJitterBuffer. The first byte
// picks the codec and whether NACK is on; the rest is a sequence of records
//   flags (1) | sequence-number step (2) | timestamp step (2) | time step in ms (1) | length (1) | payload
// (flags: marker, retransmission, poll only, decoder failure, RTT change). Every packet is
// also sent through an RTX round trip and a packet history. After each step the buffer's
// bounds must hold.
import ConferJitter
import ConferMedia
import ConferRTP

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard size > 1 else { return 0 }
    let codecs: [Codec] = [.vp8, .vp9, .h264]
    var configuration = VideoJitterBufferConfiguration(packetCapacity: 64)
    configuration.nackEnabled = data[0] & 0x80 != 0
    // The codecs are all video, so the buffer is always made.
    guard var buffer = try? VideoJitterBuffer(codec: codecs[Int(data[0] & 0x7F) % 3], configuration: configuration) else { return 0 }
    var history = RTPPacketHistory(configuration: .init(capacity: 16), rtxSSRC: 2, rtxPayloadType: 97)
    var now = Timestamp.zero
    var sequenceNumber: UInt16 = 0
    var timestamp: UInt32 = 0
    var at = 1
    while at + 7 <= size {
        let flags = data[at]
        sequenceNumber &+= UInt16(data[at + 1]) << 8 | UInt16(data[at + 2])
        timestamp &+= UInt32(data[at + 3]) << 8 | UInt32(data[at + 4])
        now += .milliseconds(Int64(data[at + 5]))
        let length = min(Int(data[at + 6]), size - at - 7)
        let payload = UnsafeRawBufferPointer(start: data + at + 7, count: length)
        at += 7 + length
        if flags & 0x20 != 0 { buffer.updateRTT(.milliseconds(Int64(flags & 0x1F) * 40)) }
        if flags & 0x08 != 0 {
            _ = buffer.decoderFailed(at: now)
        } else if flags & 0x04 != 0 {
            _ = buffer.poll(at: buffer.nextWakeup.map { max($0, now) } ?? now)
        } else {
            _ = buffer.insert(sequenceNumber: sequenceNumber, timestamp: timestamp, marker: flags & 0x01 != 0,
                              payload: payload, isRetransmission: flags & 0x02 != 0, arrival: now)
            roundTripRTX(sequenceNumber: sequenceNumber, timestamp: timestamp, payload: payload, history: &history, now: now)
        }
        precondition(buffer.bufferedPacketCount <= buffer.packetCapacity)
        precondition(buffer.bufferedFrameCount <= buffer.packetCapacity)
        precondition(buffer.pendingNackCount <= configuration.nack.maxListSize)
        let stats = buffer.statistics
        precondition(stats.packetsLost >= 0 && stats.framesDropped >= 0 && stats.packetsReceived >= 0)
    }
    _ = buffer.poll(at: now + .seconds(10))
    return 0
}

/// Stores the packet in the history, answers a NACK for it and checks the RTX restores it.
private func roundTripRTX(sequenceNumber: UInt16, timestamp: UInt32, payload: UnsafeRawBufferPointer,
                          history: inout RTPPacketHistory, now: Timestamp) {
    let header = RTPHeader(payloadType: 96, sequenceNumber: sequenceNumber, timestamp: timestamp, ssrc: 1)
    guard let bytes = try? RTPPacket(header: header, payload: Array(payload)).serialized() else { return }
    try? history.store(bytes, sentAt: now)
    history.retransmit([sequenceNumber], now: now, rtt: .milliseconds(100)) { rtx in
        guard let view = try? RTPPacketView(rtx), let decoded = try? RTXPacket(view) else {
            preconditionFailure("an RTX packet the history wrote does not parse")
        }
        precondition(decoded.originalSequenceNumber == sequenceNumber)
        precondition(decoded.originalPayload.elementsEqual(payload))
    }
}

@_cdecl("FuzzVideoJitterBuffer_main")
func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runLibFuzzer(argc, argv) { data, size in fuzz(data, size) }
}
