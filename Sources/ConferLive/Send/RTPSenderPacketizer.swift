public import ConferMedia
public import ConferRTP
public import ConferSRTP
import ConferJobs

/// Turns encoded frames into RTP packets, SRTP-protected when a session is given, in one
/// buffer that is reused frame after frame.
///
/// It adds what the payloaders leave to the caller (RFC 3550 §5.1): one sequence number
/// per packet, the frame's timestamp at the codec's clock rate from a random origin, the
/// marker the payloader asks for. Packets sit in fixed slots of ``maxPacketSize`` bytes
/// rounded up to 16, so each starts 4-byte aligned as libsrtp wants; once the slots have
/// grown to the largest frame, packetizing allocates nothing.
///
/// A class because it owns that buffer; not `Sendable` (it may hold an ``SRTPSession``):
/// one task makes and uses it.
public final class RTPSenderPacketizer {
    /// The codec packetized.
    public let codec: Codec
    /// The largest datagram written: RTP header, payload and SRTP tag.
    public let maxPacketSize: Int
    /// The RTP timestamp of media time zero.
    public let timestampOrigin: UInt32
    /// Counters for RTCP sender reports.
    public private(set) var statistics: RTPSenderStatistics
    /// The header of the next packet: its sequence number is the next to be used.
    public private(set) var header: RTPHeader

    private var payloader: AnyPayloader
    private let srtp: SRTPSession?
    private let slotSize: Int
    private var slots: UnsafeMutableRawBufferPointer
    private var lengths: [Int] = []
    private var payloadSizes: [Int] = []

    /// A packetizer for `codec` with the stream's identity and first numbers.
    ///
    /// - Throws: ``JobError`` when the payload type is above 127 or `maxPacketSize` leaves
    ///   less than 64 bytes of payload.
    public init(codec: Codec, payloadType: UInt8, ssrc: UInt32, initialSequenceNumber: UInt16,
                timestampOrigin: UInt32, maxPacketSize: Int = 1200, srtp: SRTPSession? = nil) throws {
        guard payloadType < 128 else { throw JobError("payload type \(payloadType) is above 127") }
        let overhead = RTPHeader.fixedSize + (srtp?.profile.rtpOverhead ?? 0)
        guard maxPacketSize >= overhead + 64, maxPacketSize <= 65_507 else {
            throw JobError("MTU \(maxPacketSize) must be between \(overhead + 64) and 65507 bytes")
        }
        self.codec = codec
        self.maxPacketSize = maxPacketSize
        self.timestampOrigin = timestampOrigin
        self.srtp = srtp
        slotSize = (maxPacketSize + 15) & ~15
        slots = .allocate(byteCount: slotSize * 4, alignment: 16)
        slots.initializeMemory(as: UInt8.self, repeating: 0)
        lengths.reserveCapacity(64)
        payloadSizes.reserveCapacity(64)
        header = RTPHeader(payloadType: payloadType, sequenceNumber: initialSequenceNumber, timestamp: timestampOrigin, ssrc: ssrc)
        statistics = RTPSenderStatistics(ssrc: ssrc, clockRate: codec.rtpClockRate)
        payloader = AnyPayloader(codec)
    }

    deinit { slots.deallocate() }

    /// Payload bytes that fit one packet after the header and the SRTP tag.
    public var maxPayloadSize: Int { maxPacketSize - RTPHeader.fixedSize - (srtp?.profile.rtpOverhead ?? 0) }

    /// The RTP timestamp of media time `time`, rounded to the nearest tick (so 1/30 s is
    /// 3000 ticks at 90 kHz, not 2999 as truncating 33,333 µs would make it).
    public func rtpTimestamp(for time: Timestamp) -> UInt32 {
        let rate = Int64(codec.rtpClockRate)
        let us = time.microseconds
        let ticks = us >= 0 ? (us * rate + 500_000) / 1_000_000 : -((-us * rate + 500_000) / 1_000_000)
        return timestampOrigin &+ UInt32(truncatingIfNeeded: ticks)
    }

    /// Packets made from the last frame.
    public var packetCount: Int { lengths.count }

    /// Packet `index` (0 ..< ``packetCount``) of the last frame, ready to send. Valid until
    /// the next ``packetize(_:captureTime:)``.
    public func packet(_ index: Int) -> UnsafeRawBufferPointer {
        UnsafeRawBufferPointer(rebasing: slots[index * slotSize ..< index * slotSize + lengths[index]])
    }

    /// Packetizes `frame` (stamped with its media time from the stream's start) and, with
    /// SRTP, protects every packet; `captureTime` is when the frame goes out, on the clock
    /// the sender reports are made on.
    ///
    /// - Returns: the number of packets, readable with ``packet(_:)`` until the next call.
    @discardableResult
    public func packetize(_ frame: EncodedFrame, captureTime: Timestamp) throws -> Int {
        lengths.removeAll(keepingCapacity: true)
        payloadSizes.removeAll(keepingCapacity: true)
        header.timestamp = rtpTimestamp(for: frame.timestamp)
        do {
            try payloader.payload(frame, maxPayloadSize: maxPayloadSize) { (payload, marker) throws(RTPError) in
                try append(payload, marker: marker)
            }
        } catch {
            switch error {
            case .payload(let payloadError): throw JobError("cannot packetize a \(codec) frame: \(payloadError)")
            case .emit(let rtpError): throw JobError("cannot write an RTP packet: \(rtpError)")
            }
        }
        header.marker = false
        if let srtp {
            for index in lengths.indices {
                let slot = UnsafeMutableRawBufferPointer(rebasing: slots[index * slotSize ..< (index + 1) * slotSize])
                lengths[index] = try srtp.protectRTP(slot, length: lengths[index])
            }
        }
        for size in payloadSizes {
            statistics.sent(payloadSize: size, rtpTimestamp: header.timestamp, captureTime: captureTime)
        }
        return lengths.count
    }

    private func append(_ payload: UnsafeRawBufferPointer, marker: Bool) throws(RTPError) {
        let index = lengths.count
        if (index + 1) * slotSize > slots.count { grow(toHold: index + 1) }
        header.marker = marker
        let slot = UnsafeMutableRawBufferPointer(rebasing: slots[index * slotSize ..< (index + 1) * slotSize])
        lengths.append(try header.serialize(into: slot, payload: payload))
        payloadSizes.append(payload.count)
        header.sequenceNumber &+= 1
    }

    /// Doubles the slots until `count` fit, keeping the packets already written.
    private func grow(toHold count: Int) {
        var capacity = slots.count / slotSize
        while capacity < count { capacity *= 2 }
        let bigger = UnsafeMutableRawBufferPointer.allocate(byteCount: capacity * slotSize, alignment: 16)
        bigger.initializeMemory(as: UInt8.self, repeating: 0)
        bigger.copyMemory(from: UnsafeRawBufferPointer(slots))
        slots.deallocate()
        slots = bigger
    }
}

/// One of the four payloaders, chosen by codec at run time.
private enum AnyPayloader {
    case vp8(VP8Payloader)
    case vp9(VP9Payloader)
    case h264(H264Payloader)
    case opus(OpusPayloader)
    /// Held only while a payloader is out being used, so its scratch buffer stays uniquely
    /// referenced (a copy left in the enum would make every frame copy it).
    case taken

    init(_ codec: Codec) {
        switch codec {
        case .vp8: self = .vp8(VP8Payloader())
        case .vp9: self = .vp9(VP9Payloader())
        case .h264: self = .h264(H264Payloader())
        case .opus: self = .opus(OpusPayloader())
        }
    }

    mutating func payload<E: Error>(
        _ frame: EncodedFrame, maxPayloadSize: Int, _ emit: (UnsafeRawBufferPointer, Bool) throws(E) -> Void
    ) throws(PayloaderFailure<E>) {
        switch self {
        case .vp8(var p):
            self = .taken
            defer { self = .vp8(p) }
            try p.payload(frame, maxPayloadSize: maxPayloadSize, emit)
        case .vp9(var p):
            self = .taken
            defer { self = .vp9(p) }
            try p.payload(frame, maxPayloadSize: maxPayloadSize, emit)
        case .h264(var p):
            self = .taken
            defer { self = .h264(p) }
            try p.payload(frame, maxPayloadSize: maxPayloadSize, emit)
        case .opus(var p):
            self = .taken
            defer { self = .opus(p) }
            try p.payload(frame, maxPayloadSize: maxPayloadSize, emit)
        case .taken:
            return
        }
    }
}
