/// An RTP packet as an owning value: header, payload and padding.
///
/// For convenience off the per-packet path; receivers parse with ``RTPPacketView`` and
/// senders write a reused ``RTPHeader`` with ``RTPHeader/serialize(into:payload:paddingSize:)``.
public struct RTPPacket: Hashable, Sendable {
    /// The header.
    public var header: RTPHeader
    /// The payload bytes.
    public var payload: [UInt8]
    /// Bytes of padding to append, including the count byte (0 for none, at most 255).
    public var paddingSize: Int

    /// A packet with `header`, `payload` and optional padding.
    public init(header: RTPHeader, payload: [UInt8], paddingSize: Int = 0) {
        self.header = header
        self.payload = payload
        self.paddingSize = paddingSize
    }

    /// A copy of what `view` parsed.
    public init(_ view: RTPPacketView) {
        self.init(header: RTPHeader(view), payload: Array(view.payload), paddingSize: view.paddingSize)
    }

    /// Parses `bytes` (see ``RTPPacketView/init(_:)`` for the errors).
    public init(parsing bytes: [UInt8]) throws(RTPError) {
        self = try withBytes(bytes) { (raw) throws(RTPError) in RTPPacket(try RTPPacketView(raw)) }
    }

    /// Bytes the packet takes when written.
    public var serializedSize: Int { header.serializedSize + payload.count + paddingSize }

    /// Writes the packet into `buffer` without allocating.
    ///
    /// - Returns: the number of bytes written.
    /// - Throws: see ``RTPHeader/serialize(into:payload:paddingSize:)``.
    public func serialize(into buffer: UnsafeMutableRawBufferPointer) throws(RTPError) -> Int {
        try withBytes(payload) { (raw) throws(RTPError) in
            try header.serialize(into: buffer, payload: raw, paddingSize: paddingSize)
        }
    }

    /// The packet's bytes, in a new array.
    public func serialized() throws(RTPError) -> [UInt8] {
        try makeBytes(size: serializedSize) { (buffer) throws(RTPError) in try serialize(into: buffer) }
    }
}
