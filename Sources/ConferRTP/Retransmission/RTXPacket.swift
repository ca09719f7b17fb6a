
/// An RFC 4588 retransmission packet read in place: an RTP packet on the retransmission
/// stream's own SSRC and payload type whose payload starts with the original sequence
/// number (OSN, 2 bytes, big-endian) followed by the original payload.
///
/// RTX keeps the original's timestamp, marker, CSRCs and header extensions and drops its
/// padding (RFC 4588 §4). The receiver gives ``originalPayload`` to its jitter buffer under
/// ``originalSequenceNumber``, marked as a retransmission, so it is never counted as a new
/// packet or a second frame.
public struct RTXPacket {
    /// Bytes the original sequence number takes at the start of the RTX payload.
    public static let originalSequenceNumberSize = 2

    /// The retransmission packet itself.
    public let packet: RTPPacketView
    /// The sequence number the packet had on the original stream.
    public let originalSequenceNumber: UInt16

    /// Reads the OSN of `packet`.
    ///
    /// - Throws: ``RTXError/missingOriginalSequenceNumber(payloadSize:)`` when the payload is
    ///   shorter than the 2-byte OSN.
    public init(_ packet: RTPPacketView) throws(RTXError) {
        let payload = packet.payload
        guard payload.count >= Self.originalSequenceNumberSize else {
            throw .missingOriginalSequenceNumber(payloadSize: payload.count)
        }
        self.packet = packet
        originalSequenceNumber = UInt16(payload[0]) << 8 | UInt16(payload[1])
    }

    /// The original packet's payload: the RTX payload after the OSN (borrowed from ``packet``).
    public var originalPayload: UnsafeRawBufferPointer {
        UnsafeRawBufferPointer(rebasing: packet.payload.dropFirst(Self.originalSequenceNumberSize))
    }

    /// The original packet rebuilt as an owned value, on the original stream's `ssrc` and
    /// `payloadType` (padding is not restored: RTX drops it).
    public func original(ssrc: UInt32, payloadType: UInt8) -> RTPPacket {
        var rebuilt = RTPPacket(packet)
        rebuilt.header.ssrc = ssrc
        rebuilt.header.payloadType = payloadType
        rebuilt.header.sequenceNumber = originalSequenceNumber
        rebuilt.payload = Array(originalPayload)
        rebuilt.paddingSize = 0
        return rebuilt
    }

    /// Bytes the RTX packet for `original` takes: its header, the OSN and its payload.
    public static func size(for original: RTPPacketView) -> Int {
        original.headerSize + originalSequenceNumberSize + original.payload.count
    }

    /// Writes the RTX packet for `original` into `buffer` without allocating: the original
    /// header with `payloadType`, `sequenceNumber` and `ssrc` put in and the padding bit
    /// cleared, then the OSN, then the original payload.
    ///
    /// - Returns: the bytes written (``size(for:)``).
    /// - Throws: ``RTXError/payloadTypeOutOfRange(_:)``, ``RTXError/bufferTooSmall(needed:available:)``.
    public static func write(retransmissionOf original: RTPPacketView, ssrc: UInt32, payloadType: UInt8,
                             sequenceNumber: UInt16, into buffer: UnsafeMutableRawBufferPointer) throws(RTXError) -> Int {
        guard payloadType <= 127 else { throw .payloadTypeOutOfRange(payloadType) }
        let headerSize = original.headerSize
        let payload = original.payload
        let total = size(for: original)
        guard total <= buffer.count else { throw .bufferTooSmall(needed: total, available: buffer.count) }
        // Copying the header bytes keeps CSRCs and extensions exactly as they were.
        UnsafeMutableRawBufferPointer(rebasing: buffer[0 ..< headerSize])
            .copyMemory(from: UnsafeRawBufferPointer(rebasing: original.bytes[0 ..< headerSize]))
        buffer[0] &= ~0x20
        buffer[1] = (buffer[1] & 0x80) | payloadType
        buffer[2] = UInt8(truncatingIfNeeded: sequenceNumber >> 8)
        buffer[3] = UInt8(truncatingIfNeeded: sequenceNumber)
        buffer[8] = UInt8(truncatingIfNeeded: ssrc >> 24)
        buffer[9] = UInt8(truncatingIfNeeded: ssrc >> 16)
        buffer[10] = UInt8(truncatingIfNeeded: ssrc >> 8)
        buffer[11] = UInt8(truncatingIfNeeded: ssrc)
        let osn = original.sequenceNumber
        buffer[headerSize] = UInt8(truncatingIfNeeded: osn >> 8)
        buffer[headerSize + 1] = UInt8(truncatingIfNeeded: osn)
        if !payload.isEmpty {
            UnsafeMutableRawBufferPointer(rebasing: buffer[headerSize + 2 ..< total]).copyMemory(from: payload)
        }
        return total
    }

    /// The RTX packet for `original`, in a new array (off the per-packet path).
    public static func make(retransmissionOf original: RTPPacketView, ssrc: UInt32, payloadType: UInt8,
                            sequenceNumber: UInt16) throws(RTXError) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: size(for: original))
        let result: Result<Int, RTXError> = bytes.withUnsafeMutableBytes { buffer in
            Result { () throws(RTXError) -> Int in
                try write(retransmissionOf: original, ssrc: ssrc, payloadType: payloadType,
                          sequenceNumber: sequenceNumber, into: buffer)
            }
        }
        _ = try result.get()
        return bytes
    }
}

/// Why an RTX packet could not be read or written.
public enum RTXError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The RTX payload is shorter than the 2-byte original sequence number.
    case missingOriginalSequenceNumber(payloadSize: Int)
    /// The output buffer cannot hold the RTX packet.
    case bufferTooSmall(needed: Int, available: Int)
    /// An RTP payload type is 0–127.
    case payloadTypeOutOfRange(UInt8)

    /// A sentence for a person.
    public var description: String {
        switch self {
        case .missingOriginalSequenceNumber(let size):
            "RTX payload of \(size) bytes has no 2-byte original sequence number"
        case .bufferTooSmall(let needed, let available):
            "RTX packet needs \(needed) bytes, the buffer has \(available)"
        case .payloadTypeOutOfRange(let type):
            "RTX payload type \(type) is above 127"
        }
    }
}
