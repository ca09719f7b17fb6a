public import ConferMedia
public import ConferRTP

/// The RTP side of one outgoing stream: its header (SSRC, payload type, next sequence
/// number), its media clock, and where in every packet it writes the per-packet header
/// extension values.
///
/// The header is built once with placeholder extension elements; each packet reuses it
/// (sequence number, timestamp and marker change) and the transport-wide sequence number
/// and abs-send-time are written over the placeholders afterwards, at offsets found once by
/// parsing a template packet. So writing a packet allocates nothing.
package struct SendPipelinePacketWriter {
    private var header: RTPHeader
    /// RTP ticks per second of the stream's media clock.
    let clockRate: Int
    /// Added to every media timestamp (RFC 3550 §5.1 wants a random start).
    let timestampOffset: UInt32
    /// Bytes every header takes.
    let headerSize: Int
    /// Where the 2-byte transport-wide sequence number sits in each packet, if sent.
    let transportSequenceOffset: Int?
    /// Where the 3-byte abs-send-time sits in each packet, if sent.
    let absoluteSendTimeOffset: Int?
    /// Packets and bytes sent, and the RTP/NTP mapping for sender reports.
    package private(set) var statistics: RTPSenderStatistics

    init(ssrc: UInt32, payloadType: UInt8, clockRate: Int, transportSequenceNumberID: UInt8?,
         absoluteSendTimeID: UInt8?, firstSequenceNumber: UInt16, timestampOffset: UInt32) throws(SendPipelineError) {
        header = RTPHeader(payloadType: payloadType, sequenceNumber: firstSequenceNumber, timestamp: 0, ssrc: ssrc)
        guard payloadType <= 127 else { throw SendPipelineError("payload type \(payloadType) is above 127") }
        if let id = transportSequenceNumberID {
            guard (1...14).contains(id) else { throw SendPipelineError("extension id \(id) does not fit the one-byte form (1…14)") }
            header.setExtensionValue(RTPTransportSequenceNumber(0), id: id)
        }
        if let id = absoluteSendTimeID {
            guard (1...14).contains(id), id != transportSequenceNumberID else {
                throw SendPipelineError("abs-send-time extension id \(id) is not 1…14 or is already taken")
            }
            header.setExtensionValue(RTPAbsoluteSendTime(rawValue: 0), id: id)
        }
        self.clockRate = clockRate
        self.timestampOffset = timestampOffset
        headerSize = header.serializedSize
        statistics = RTPSenderStatistics(ssrc: ssrc, clockRate: clockRate)

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
        if (transportSequenceNumberID != nil) != (transportSequenceOffset != nil)
            || (absoluteSendTimeID != nil) != (absoluteSendTimeOffset != nil) {
            throw SendPipelineError("could not lay out the RTP header extensions")
        }
    }

    /// The stream's SSRC.
    var ssrc: UInt32 { header.ssrc }
    /// The sequence number the next packet gets.
    var nextSequenceNumber: UInt16 { header.sequenceNumber }

    /// The RTP timestamp of media captured at `time`, rounded to the nearest tick (so 1/30 s,
    /// 33,333 µs, is 3000 ticks at 90 kHz, not the 2999 truncation would make it).
    func rtpTimestamp(at time: Timestamp) -> UInt32 {
        let rate = Int64(clockRate)
        let us = time.microseconds
        let ticks = us >= 0 ? (us * rate + 500_000) / 1_000_000 : -((-us * rate + 500_000) / 1_000_000)
        return timestampOffset &+ UInt32(truncatingIfNeeded: ticks)
    }

    /// Writes a padding-only packet (RFC 3550 §5.1: no payload, `paddingSize` bytes of
    /// padding) with sequence number `sequenceNumber` into `buffer`; 0 when it does not fit.
    /// The writer's own sequence number is left alone: RTX numbers belong to the history.
    mutating func writePadding(_ paddingSize: Int, sequenceNumber: UInt16, rtpTimestamp: UInt32,
                               into buffer: UnsafeMutableRawBufferPointer) -> Int {
        var padding = header
        padding.marker = false
        padding.sequenceNumber = sequenceNumber
        padding.timestamp = rtpTimestamp
        let none = UnsafeRawBufferPointer(start: nil, count: 0)
        return (try? padding.serialize(into: buffer, payload: none, paddingSize: paddingSize)) ?? 0
    }

    /// Writes the next packet (header, then `payload`) into `buffer` and returns its length;
    /// 0 when it does not fit (a caller's sizing bug, counted by the caller as a failure).
    mutating func write(payload: UnsafeRawBufferPointer, marker: Bool, rtpTimestamp: UInt32, captureTime: Timestamp,
                        into buffer: UnsafeMutableRawBufferPointer) -> Int {
        header.marker = marker
        header.timestamp = rtpTimestamp
        guard let written = try? header.serialize(into: buffer, payload: payload) else { return 0 }
        header.sequenceNumber &+= 1
        statistics.sent(payloadSize: payload.count, rtpTimestamp: rtpTimestamp, captureTime: captureTime)
        return written
    }
}
