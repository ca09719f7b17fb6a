import ConferMedia
import ConferRTP
import ConferSRTP

/// The per-datagram work of ``LiveReceiver``: SRTP unprotect, parse, filter, statistics,
/// frame assembly, then the output. Plain synchronous code with no clock or I/O of its
/// own (the arrival time is passed in), generic over the codec's depacketizer so each
/// codec's path is specialized.
///
/// Every datagram is copied into one aligned buffer and unprotected there; whatever it
/// holds, it ends up counted in exactly one place and never stops the stream.
final class LiveReceiverPipeline<D: Depacketizer> {
    /// The most SSRCs that get their own statistics; packets from more are still counted.
    static var maxTrackedSources: Int { 32 }

    private var assembler: FrameAssembler<D>
    private let payloadType: UInt8
    private let inbound: SRTPPair?
    let output: LiveReceiverOutput
    private let buffer: UnsafeMutableRawBufferPointer

    /// The SSRC whose frames are assembled: the first heard with the expected payload type.
    private(set) var receivedSSRC: UInt32?
    private(set) var sources: [UInt32: RTPReceiverStatistics] = [:]
    private(set) var sourceOrder: [UInt32] = []
    private(set) var datagrams = 0
    private(set) var bytes = 0
    private(set) var rtcpPackets = 0
    private(set) var malformed = 0
    private(set) var wrongPayloadType = 0
    private(set) var otherSSRC = 0
    private(set) var packetsAccepted = 0
    private(set) var payloadBytes = 0

    init(depacketizer: D, payloadType: UInt8, srtpKey: SRTPMasterKey?, reorderWindow: Int, output: LiveReceiverOutput) throws {
        assembler = FrameAssembler(depacketizer: depacketizer, capacity: 1024, reorderWindow: reorderWindow)
        self.payloadType = payloadType
        inbound = try srtpKey.map { try SRTPPair(key: $0, direction: .inbound) }
        self.output = output
        // A UDP datagram is at most 65,507 bytes; SwiftNIO hands over at most 65,536.
        buffer = .allocate(byteCount: 65_536, alignment: 16)
    }

    deinit { buffer.deallocate() }

    /// SRTP counters (RTP and RTCP together), zero without a key.
    var srtpStats: SRTPStats { inbound?.stats ?? SRTPStats() }

    /// Frame assembly's counters.
    var assemblerStats: FrameAssemblerStats { assembler.stats }

    /// Handles one datagram that arrived at `arrival`. Throws only when the output fails.
    func receive(_ datagram: [UInt8], at arrival: Timestamp) throws {
        datagrams += 1
        bytes += datagram.count
        guard datagram.count <= buffer.count else {
            malformed += 1
            return
        }
        datagram.withUnsafeBytes { buffer.copyMemory(from: $0) }
        var length = datagram.count
        // RFC 5761 §4: with RTCP on the RTP port, its packet types 192–223 fill the second byte.
        if length >= 8, buffer[0] >> 6 == 2, RTPDatagramRoute.isRTCP(UnsafeRawBufferPointer(rebasing: buffer[0 ..< length])) {
            receiveControl(length: length, at: arrival)
            return
        }
        if let srtp = inbound?.rtp {
            // A forged, replayed or truncated packet is counted in the session's stats.
            guard let plain = try? srtp.unprotectRTP(buffer, length: length) else { return }
            length = plain
        }
        let packet: RTPPacketView
        do { packet = try RTPPacketView(UnsafeRawBufferPointer(rebasing: buffer[0 ..< length])) } catch {
            malformed += 1
            return
        }
        guard packet.payloadType == payloadType else {
            wrongPayloadType += 1
            return
        }
        let ssrc = packet.ssrc
        if receivedSSRC == nil { receivedSSRC = ssrc }
        track(ssrc, packet, at: arrival)
        guard ssrc == receivedSSRC else {
            otherSSRC += 1
            return
        }
        packetsAccepted += 1
        payloadBytes += packet.payload.count
        _ = assembler.insert(sequenceNumber: packet.sequenceNumber, timestamp: packet.timestamp, marker: packet.marker,
                             payload: packet.payload)
        while let frame = assembler.nextFrame() {
            try output.write(frame)
        }
    }

    /// Ends the stream: gives up on missing packets so every complete frame still buffered
    /// comes out.
    func finish() throws {
        // Each pass emits or discards at least one buffered packet, so this ends.
        for _ in 0 ... assembler.capacity {
            while let frame = assembler.nextFrame() {
                try output.write(frame)
            }
            if assembler.bufferedPacketCount == 0 { break }
            assembler.skipMissing()
        }
    }

    private func track(_ ssrc: UInt32, _ packet: RTPPacketView, at arrival: Timestamp) {
        if sources[ssrc] == nil {
            guard sources.count < Self.maxTrackedSources else { return }
            sources[ssrc] = RTPReceiverStatistics(ssrc: ssrc, clockRate: D.codec.rtpClockRate)
            sourceOrder.append(ssrc)
        }
        sources[ssrc]?.receive(sequenceNumber: packet.sequenceNumber, rtpTimestamp: packet.timestamp, arrival: arrival)
    }

    /// Counts an RTCP packet on the RTP port (a forged or malformed one where such are counted) and keeps its sender reports for the statistics.
    private func receiveControl(length: Int, at arrival: Timestamp) {
        var length = length
        if let srtcp = inbound?.rtcp {
            guard let plain = try? srtcp.unprotectRTCP(buffer, length: length) else { return }
            length = plain
        }
        guard let packets = try? RTCPCompound.parse(UnsafeRawBufferPointer(rebasing: buffer[0 ..< length])) else {
            malformed += 1
            return
        }
        rtcpPackets += 1
        for case .senderReport(let report) in packets where sources[report.ssrc] != nil {
            sources[report.ssrc]?.receivedSenderReport(ntpTime: report.ntpTime, at: arrival)
        }
    }
}
