import ConferMedia
import ConferRTP
import ConferSRTP
import ConferCongestion

/// What every stream of a ``SendPipeline`` shares: the packet buffer they write into, the
/// transport-wide sequence number, the congestion controller that learns of every packet,
/// SRTP, and the output.
final class SendPipelineTransport {
    /// Where streams write the packet about to be sent: room for the largest packet and
    /// an SRTP tag, 16-byte aligned (libsrtp reads words).
    let buffer: UnsafeMutableRawBufferPointer
    /// Where RTCP compounds are written.
    private let controlBuffer: UnsafeMutableRawBufferPointer
    /// The largest RTP packet a stream may write, before SRTP.
    let maximumRTPSize: Int
    /// The congestion controller.
    var estimator: SendSideBandwidthEstimator
    private var transportSequenceNumber: UInt16
    private let srtp: SRTPSession?
    private let srtcp: SRTPSession?
    private let output: (UnsafeRawBufferPointer) -> Void

    /// The probe cluster being sent, if any: every packet sent meanwhile, media included,
    /// belongs to it (as libwebrtc's pacer tags them), so the receive rate the cluster
    /// measures is the bottleneck's, not diluted by media sent between its packets.
    var activeProbeClusterID: Int?

    /// RTP datagrams sent (media and RTX).
    private(set) var rtpPacketsSent = 0
    /// Bytes of RTP datagrams sent, SRTP included.
    private(set) var rtpBytesSent = 0
    /// RTCP compounds sent.
    private(set) var rtcpPacketsSent = 0
    /// Packets that could not be written or protected (never expected; counted, not sent).
    private(set) var sendFailures = 0

    /// Spreads video packets at 2.5 × the estimate (nil: every packet leaves as written).
    private var pacer: Pacer?
    /// Video packets waiting for the pacer.
    private var media: SendPipelinePacketQueue
    /// Retransmissions waiting for the pacer: they leave before any media waiting, as in
    /// libwebrtc's pacer (a retransmission is late already, and the frame it completes
    /// holds back every frame after it at the receiver).
    private var retransmissions: SendPipelinePacketQueue
    /// Bytes waiting for the pacer.
    var queuedBytes: Int { media.bytes + retransmissions.bytes }
    /// Packets waiting for the pacer.
    private var queuedPackets: Int { media.count + retransmissions.count }
    /// Video and RTX packets that waited for the pacer.
    private(set) var packetsPaced = 0
    /// Packets sent at once because their pacer queue was full.
    private(set) var pacerOverflows = 0

    /// Whether packets handed to ``sendPaced(length:transportSequenceOffset:absoluteSendTimeOffset:at:)``
    /// wait for the pacer now (a transport made with a pacer can leave it idle: the host
    /// paces only participants that get fewer layers; see ``setPacing(factor:)``).
    private(set) var isPacing: Bool

    /// Paces at `factor` × the estimate from now on, or (nil) not at all: packets then
    /// leave as written once the queue has drained. A transport made without a pacer ignores it.
    func setPacing(factor: Double?) {
        guard pacer != nil else { return }
        isPacing = factor != nil
        if let factor { pacer?.factor = factor }
    }

    /// How many packets the pacer's queue holds: two seconds of a 2 Mbit/s stream.
    static let queueSlots = 512
    /// How many retransmissions may wait: more than a NACK's budget at 2 Mbit/s.
    static let retransmissionSlots = 128

    /// Largest RTCP compound sent (sender reports for two streams, SDES).
    static let controlBufferSize = 1500

    convenience init(configuration: SendPipelineConfiguration, estimator: SendSideBandwidthEstimator,
                     firstTransportSequenceNumber: UInt16, output: @escaping (UnsafeRawBufferPointer) -> Void) throws {
        try self.init(maximumPacketSize: configuration.maximumPacketSize, srtpKey: configuration.srtpKey, estimator: estimator,
                      firstTransportSequenceNumber: firstTransportSequenceNumber,
                      paces: configuration.paces && configuration.adaptsBitrate, output: output)
    }

    /// A transport sending datagrams of at most `maximumPacketSize` bytes (SRTP tag
    /// included), protected with `srtpKey` if given. The compositing host makes one per
    /// participant (``HostPipeline``), the send pipeline one for its path.
    init(maximumPacketSize: Int, srtpKey: SRTPMasterKey?, estimator: SendSideBandwidthEstimator,
         firstTransportSequenceNumber: UInt16, paces: Bool = false, output: @escaping (UnsafeRawBufferPointer) -> Void) throws {
        let tagSize = max(srtpKey?.profile.rtpOverhead ?? 0, srtpKey?.profile.rtcpOverhead ?? 0)
        maximumRTPSize = maximumPacketSize - (srtpKey?.profile.rtpOverhead ?? 0)
        guard maximumRTPSize >= 200 else {
            throw SendPipelineError(.invalidConfiguration, "a maximum packet size of \(maximumPacketSize) bytes leaves too little room for media")
        }
        buffer = .allocate(byteCount: maximumPacketSize + tagSize + 16, alignment: 16)
        controlBuffer = .allocate(byteCount: Self.controlBufferSize + tagSize + 16, alignment: 16)
        self.estimator = estimator
        transportSequenceNumber = firstTransportSequenceNumber
        let outbound = try srtpKey.map { try SRTPPair(key: $0, direction: .outbound) }
        srtp = outbound?.rtp
        srtcp = outbound?.rtcp
        self.output = output
        pacer = paces ? Pacer(target: estimator.targetBitrate) : nil
        isPacing = paces
        // Allocated once, when pacing: the queues never grow.
        media = SendPipelinePacketQueue(slots: paces ? Self.queueSlots : 0, slotSize: maximumRTPSize)
        retransmissions = SendPipelinePacketQueue(slots: paces ? Self.retransmissionSlots : 0, slotSize: maximumRTPSize)
    }

    deinit {
        buffer.deallocate()
        controlBuffer.deallocate()
        media.deallocate()
        retransmissions.deallocate()
    }

    /// Sends the RTP packet in the first `length` bytes of ``buffer`` when the pacer lets it
    /// leave at `now`, else queues a copy for ``poll(at:)``; without pacing, sends it. A
    /// `retransmission` waits only for other retransmissions, not for media.
    /// Returns the bytes sent or queued (0 when it could not be sent).
    @discardableResult
    func sendPaced(length: Int, transportSequenceOffset: Int?, absoluteSendTimeOffset: Int?, at now: Timestamp,
                   retransmission: Bool = false) -> Int {
        guard var pacer, isPacing || queuedPackets > 0 else {
            let size = sendRTP(length: length, transportSequenceOffset: transportSequenceOffset,
                               absoluteSendTimeOffset: absoluteSendTimeOffset, at: now)
            self.pacer?.sent(size, at: now)
            return size
        }
        pacer.setTarget(estimator.targetBitrate, queuedBytes: queuedBytes + length, at: now)
        let ahead = retransmission ? retransmissions.count : queuedPackets
        if ahead == 0, pacer.canSend(at: now) || !isPacing {
            let size = sendRTP(length: length, transportSequenceOffset: transportSequenceOffset,
                               absoluteSendTimeOffset: absoluteSendTimeOffset, at: now)
            pacer.sent(size, at: now)
            self.pacer = pacer
            return size
        }
        self.pacer = pacer
        let extensions = SendPipelinePacketQueue.Extensions(transportSequenceOffset: transportSequenceOffset,
                                                            absoluteSendTimeOffset: absoluteSendTimeOffset)
        let packet = UnsafeRawBufferPointer(rebasing: buffer[0 ..< max(length, 0)])
        if retransmission, retransmissions.accepts(length) {
            retransmissions.push(packet, extensions: extensions)
        } else if !retransmission, media.accepts(length) {
            media.push(packet, extensions: extensions)
        } else {
            // Full (or a packet no slot holds): late is worse than a burst.
            pacerOverflows += 1
            let size = sendRTP(length: length, transportSequenceOffset: transportSequenceOffset,
                               absoluteSendTimeOffset: absoluteSendTimeOffset, at: now)
            self.pacer?.sent(size, at: now)
            return size
        }
        packetsPaced += 1
        return length
    }

    /// Sends the queued packets the pacer lets leave by `now`, retransmissions first.
    func poll(at now: Timestamp) {
        guard var pacer, queuedPackets > 0 else { return }
        pacer.setTarget(estimator.targetBitrate, queuedBytes: queuedBytes, at: now)
        while queuedPackets > 0, pacer.canSend(at: now) || !isPacing {
            guard let (length, extensions) = retransmissions.pop(into: buffer) ?? media.pop(into: buffer) else { break }
            let size = sendRTP(length: length, transportSequenceOffset: extensions.transportSequenceOffset,
                               absoluteSendTimeOffset: extensions.absoluteSendTimeOffset, at: now)
            pacer.sent(size, at: now)
        }
        self.pacer = pacer
    }

    /// When the next queued packet may leave; nil with nothing queued.
    var nextPacedSendTime: Timestamp? {
        guard queuedPackets > 0, let pacer else { return nil }
        return pacer.earliestSendTime
    }

    /// Packetizes `frame` with `packetizer` into ``buffer`` and sends each packet as it is
    /// written; `written` sees every packet in plaintext first (the RTX history keeps it
    /// there: RTX is protected on its own and gets a fresh transport-wide number).
    ///
    /// - Returns: the packets and bytes sent.
    func send(_ frame: EncodedFrame, with packetizer: inout RTPPacketizer, rtpTimestamp: UInt32, captureTime: Timestamp,
              maxPayloadSize: Int, at now: Timestamp, paced: Bool = false,
              written: (UnsafeRawBufferPointer) -> Void = { _ in }) throws(SendPipelineError) -> (packets: Int, bytes: Int) {
        let transportOffset = packetizer.transportSequenceOffset
        let sendTimeOffset = packetizer.absoluteSendTimeOffset
        let buffer = self.buffer
        var sent = (packets: 0, bytes: 0)
        do {
            try packetizer.packetize(frame, rtpTimestamp: rtpTimestamp, captureTime: captureTime, maxPayloadSize: maxPayloadSize,
                                     into: buffer) { length in
                written(UnsafeRawBufferPointer(rebasing: buffer[0 ..< length]))
                if paced {
                    sendPaced(length: length, transportSequenceOffset: transportOffset, absoluteSendTimeOffset: sendTimeOffset, at: now)
                } else {
                    sendRTP(length: length, transportSequenceOffset: transportOffset, absoluteSendTimeOffset: sendTimeOffset, at: now)
                }
                sent.packets += 1
                sent.bytes += length
            }
        } catch {
            throw SendPipelineError(.packetization, "cannot packetize a \(frame.codec) frame: \(error.payloadError)")
        }
        return sent
    }

    /// Stamps the RTP packet in the first `length` bytes of ``buffer`` with the next
    /// transport-wide sequence number and the send time, tells the congestion controller,
    /// protects it and hands it to the output. Returns the bytes handed to the output, 0
    /// when the packet could not be sent.
    @discardableResult
    func sendRTP(length: Int, transportSequenceOffset: Int?, absoluteSendTimeOffset: Int?, at now: Timestamp,
                 probeClusterID: Int? = nil) -> Int {
        guard length > 0 else {
            sendFailures += 1
            return 0
        }
        let sequenceNumber = transportSequenceNumber
        if let offset = transportSequenceOffset {
            buffer[offset] = UInt8(truncatingIfNeeded: sequenceNumber >> 8)
            buffer[offset + 1] = UInt8(truncatingIfNeeded: sequenceNumber)
            transportSequenceNumber &+= 1
        }
        if let offset = absoluteSendTimeOffset {
            let value = RTPAbsoluteSendTime(now).rawValue
            buffer[offset] = UInt8(truncatingIfNeeded: value >> 16)
            buffer[offset + 1] = UInt8(truncatingIfNeeded: value >> 8)
            buffer[offset + 2] = UInt8(truncatingIfNeeded: value)
        }
        var size = length
        if let srtp {
            guard let protected = try? srtp.protectRTP(buffer, length: length) else {
                sendFailures += 1
                return 0
            }
            size = protected
        }
        if transportSequenceOffset != nil {
            estimator.onPacketSent(transportSequenceNumber: sequenceNumber, size: size, at: now,
                                   probeClusterID: probeClusterID ?? activeProbeClusterID)
        }
        rtpPacketsSent += 1
        rtpBytesSent += size
        output(UnsafeRawBufferPointer(rebasing: buffer[0 ..< size]))
        return size
    }

    /// Copies `packet` (an RTX packet another component wrote) into ``buffer`` and sends it
    /// like a packet written there; its header extensions sit where the original's did.
    /// The compositing host sends its one plaintext packet to each participant this way,
    /// stamped and protected for each.
    ///
    /// A forwarder renumbering packets for this receiver passes `rewriting` and
    /// `rewritingAlso`: 16-bit numbers written big-endian at byte offsets of the copy (the
    /// RTP sequence number or an RTX packet's original one, and the picture id).
    @discardableResult
    func sendRTP(copying packet: UnsafeRawBufferPointer, transportSequenceOffset: Int?, absoluteSendTimeOffset: Int?,
                 at now: Timestamp, paced: Bool = false, retransmission: Bool = false,
                 rewriting: (offset: Int, value: UInt16)? = nil,
                 rewritingAlso second: (offset: Int, value: UInt16)? = nil) -> Int {
        guard packet.count <= maximumRTPSize else {
            sendFailures += 1
            return 0
        }
        UnsafeMutableRawBufferPointer(rebasing: buffer[0 ..< packet.count]).copyMemory(from: packet)
        func write(_ field: (offset: Int, value: UInt16)?) {
            guard let field, field.offset >= 0, field.offset + 2 <= packet.count else { return }
            buffer[field.offset] = UInt8(truncatingIfNeeded: field.value >> 8)
            buffer[field.offset + 1] = UInt8(truncatingIfNeeded: field.value)
        }
        write(rewriting)
        write(second)
        if paced {
            return sendPaced(length: packet.count, transportSequenceOffset: transportSequenceOffset,
                             absoluteSendTimeOffset: absoluteSendTimeOffset, at: now, retransmission: retransmission)
        }
        return sendRTP(length: packet.count, transportSequenceOffset: transportSequenceOffset,
                       absoluteSendTimeOffset: absoluteSendTimeOffset, at: now)
    }

    /// Writes `packets` as one compound, protects it and hands it to the output.
    func sendRTCP(_ packets: [RTCPPacket]) {
        let body = UnsafeMutableRawBufferPointer(rebasing: controlBuffer[0 ..< Self.controlBufferSize])
        guard !packets.isEmpty, var size = try? RTCPCompound.serialize(packets, into: body) else {
            sendFailures += 1
            return
        }
        if let srtcp {
            guard let protected = try? srtcp.protectRTCP(controlBuffer, length: size) else {
                sendFailures += 1
                return
            }
            size = protected
        }
        rtcpPacketsSent += 1
        output(UnsafeRawBufferPointer(rebasing: controlBuffer[0 ..< size]))
    }
}
