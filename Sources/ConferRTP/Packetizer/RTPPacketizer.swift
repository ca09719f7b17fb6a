public import ConferMedia

/// Turns encoded frames into RTP packets: the one packetizer of the send side, used by
/// `SendPipeline`, the compositing host, the benchmarks and the tests.
///
/// It adds what payloaders leave to the caller (RFC 3550 §5.1): one sequence number per
/// packet, the frame's timestamp at the codec's clock rate from a random origin, the marker
/// the payloader asks for. The header is built once with placeholder header extensions
/// (transport-wide sequence number, abs-send-time); each packet reuses it, and the
/// transport stamps the per-packet values over the placeholders afterwards, at offsets
/// found once here by parsing a template packet. So packetizing allocates nothing once
/// the payloader's scratch buffer has grown to the largest payload.
///
/// Packets are written one at a time into the caller's buffer (a transport's send
/// buffer), and handed back by length before the next is written.
public struct RTPPacketizer {
    private var header: RTPHeader
    private var payloader: RTPPayloader
    /// The codec packetized.
    public let codec: Codec
    /// RTP ticks per second of the stream's media clock.
    public let clockRate: Int
    /// Added to every media timestamp (RFC 3550 §5.1 wants a random start).
    public let timestampOffset: UInt32
    /// Bytes every header takes.
    public let headerSize: Int
    /// Where the 2-byte transport-wide sequence number sits in each packet, if sent.
    public let transportSequenceOffset: Int?
    /// Where the 3-byte abs-send-time sits in each packet, if sent.
    public let absoluteSendTimeOffset: Int?
    /// Packets and bytes sent, and the RTP/NTP mapping for sender reports.
    public private(set) var statistics: RTPSenderStatistics

    /// A packetizer for `codec` with the stream's identity and first numbers, and the
    /// one-byte header extension ids (1…14) to leave room for, if any; VP8 descriptors
    /// carry TL0PICIDX, TID and Y when `writesTemporalLayers` (VP9: as `vp9Layers` says, see ``RTPPayloader``).
    ///
    /// - Throws: ``RTPError/fieldOutOfRange(_:)`` for a payload type above 127,
    ///   ``RTPError/invalidExtensionID(_:)`` for an id outside 1…14 or used twice.
    public init(codec: Codec, ssrc: UInt32, payloadType: UInt8, firstSequenceNumber: UInt16, timestampOffset: UInt32,
                transportSequenceNumberID: UInt8? = nil, absoluteSendTimeID: UInt8? = nil,
                marksTalkspurts: Bool = false, writesTemporalLayers: Bool = false,
                vp9Layers: VP9LayerSignalling = .flexibleMode) throws(RTPError) {
        guard payloadType <= 127 else { throw .fieldOutOfRange("payload type \(payloadType) is above 127") }
        header = RTPHeader(payloadType: payloadType, sequenceNumber: firstSequenceNumber, timestamp: 0, ssrc: ssrc)
        if let id = transportSequenceNumberID {
            guard (1...14).contains(id) else { throw .invalidExtensionID(id) }
            header.setExtensionValue(RTPTransportSequenceNumber(0), id: id)
        }
        if let id = absoluteSendTimeID {
            guard (1...14).contains(id), id != transportSequenceNumberID else { throw .invalidExtensionID(id) }
            header.setExtensionValue(RTPAbsoluteSendTime(rawValue: 0), id: id)
        }
        self.codec = codec
        clockRate = codec.rtpClockRate
        self.timestampOffset = timestampOffset
        headerSize = header.serializedSize
        statistics = RTPSenderStatistics(ssrc: ssrc, clockRate: codec.rtpClockRate)
        payloader = RTPPayloader(codec: codec, marksTalkspurts: marksTalkspurts, writesTemporalLayers: writesTemporalLayers,
                                 vp9Layers: vp9Layers)

        // Find the extension elements in a template packet once.
        var template = [UInt8](repeating: 0, count: headerSize)
        let header = header
        let offsets = template.withUnsafeMutableBytes { buffer -> (Int?, Int?) in
            guard (try? header.serialize(into: buffer, payload: UnsafeRawBufferPointer(start: nil, count: 0))) != nil,
                  let view = try? RTPPacketView(UnsafeRawBufferPointer(buffer)),
                  let start = buffer.baseAddress else { return (nil, nil) }
            func offset(_ id: UInt8?) -> Int? {
                guard let id, let data = view.extensionData(id: id), let base = data.baseAddress else { return nil }
                return base - UnsafeRawPointer(start)
            }
            return (offset(transportSequenceNumberID), offset(absoluteSendTimeID))
        }
        transportSequenceOffset = offsets.0
        absoluteSendTimeOffset = offsets.1
    }

    /// The stream's SSRC.
    public var ssrc: UInt32 { header.ssrc }
    /// The stream's payload type.
    public var payloadType: UInt8 { header.payloadType }
    /// The sequence number the next packet gets.
    public var nextSequenceNumber: UInt16 { header.sequenceNumber }

    /// `delta` in ticks of a `clockRate` clock, rounded to the nearest tick (so 1/30 s,
    /// 33,333 µs, is 3000 ticks at 90 kHz, not the 2999 truncation would make it): the one
    /// place media time becomes RTP time.
    public static func ticks(_ delta: TimeDelta, clockRate: Int) -> Int64 {
        let us = delta.microseconds, rate = Int64(clockRate)
        return us >= 0 ? (us * rate + 500_000) / 1_000_000 : -((-us * rate + 500_000) / 1_000_000)
    }

    /// The RTP timestamp of media captured at `time` (media time from the stream's start).
    public func rtpTimestamp(at time: Timestamp) -> UInt32 {
        timestampOffset &+ UInt32(truncatingIfNeeded: Self.ticks(time - .zero, clockRate: clockRate))
    }

    /// Packetizes `frame` with RTP timestamp `rtpTimestamp`: each packet is written into
    /// `buffer` and handed to `packetWritten` with its length before the next overwrites it.
    /// `captureTime` is when the frame goes out on the clock sender reports are made on.
    ///
    /// A payload that does not fit `buffer` with its header is skipped (a caller's sizing
    /// bug: size the buffer for `maxPayloadSize` plus ``headerSize``).
    public mutating func packetize<E: Error>(
        _ frame: EncodedFrame, rtpTimestamp: UInt32, captureTime: Timestamp, maxPayloadSize: Int,
        into buffer: UnsafeMutableRawBufferPointer, _ packetWritten: (_ length: Int) throws(E) -> Void
    ) throws(PayloaderFailure<E>) {
        // Taken out so its scratch buffer stays uniquely referenced while it is used.
        var payloader = self.payloader
        self.payloader = .taken
        defer { self.payloader = payloader }
        try payloader.payload(frame, maxPayloadSize: maxPayloadSize) { (payload, marker) throws(E) in
            let length = write(payload: payload, marker: marker, rtpTimestamp: rtpTimestamp,
                               captureTime: captureTime, into: buffer)
            guard length > 0 else { return }
            try packetWritten(length)
        }
    }

    /// Writes the next packet (header, then `payload`) into `buffer` and returns its length;
    /// 0 when it does not fit.
    public mutating func write(payload: UnsafeRawBufferPointer, marker: Bool, rtpTimestamp: UInt32, captureTime: Timestamp,
                               into buffer: UnsafeMutableRawBufferPointer) -> Int {
        header.marker = marker
        header.timestamp = rtpTimestamp
        guard let written = try? header.serialize(into: buffer, payload: payload) else { return 0 }
        header.sequenceNumber &+= 1
        statistics.sent(payloadSize: payload.count, rtpTimestamp: rtpTimestamp, captureTime: captureTime)
        return written
    }

    /// Writes a padding-only packet (RFC 3550 §5.1: no payload, `paddingSize` bytes of
    /// padding) with sequence number `sequenceNumber` into `buffer`; 0 when it does not fit.
    /// The packetizer's own sequence number is left alone: RTX numbers belong to the history.
    public func writePadding(_ paddingSize: Int, sequenceNumber: UInt16, rtpTimestamp: UInt32,
                             into buffer: UnsafeMutableRawBufferPointer) -> Int {
        var padding = header
        padding.marker = false
        padding.sequenceNumber = sequenceNumber
        padding.timestamp = rtpTimestamp
        let none = UnsafeRawBufferPointer(start: nil, count: 0)
        return (try? padding.serialize(into: buffer, payload: none, paddingSize: paddingSize)) ?? 0
    }
}
