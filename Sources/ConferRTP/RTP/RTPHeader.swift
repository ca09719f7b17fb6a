/// One RFC 8285 header extension element, owned.
public struct RTPHeaderExtension: Hashable, Sendable {
    /// The negotiated local id.
    public var id: UInt8
    /// The element's data bytes.
    public var data: [UInt8]

    /// An element with `id` and `data`.
    public init(id: UInt8, data: [UInt8]) {
        self.id = id
        self.data = data
    }
}

/// A header extension in a profile other than RFC 8285's, kept opaque so it round-trips.
public struct RTPOpaqueHeaderExtension: Hashable, Sendable {
    /// The 16-bit "defined by profile" value.
    public var profile: UInt16
    /// The extension data, a multiple of 4 bytes long.
    public var data: [UInt8]

    /// An extension with `profile` and `data` (whose length must be a multiple of 4 to be written).
    public init(profile: UInt16, data: [UInt8]) {
        self.profile = profile
        self.data = data
    }
}

/// The RTP header (RFC 3550 §5.1) as an owning value, for building packets to send.
///
/// The version is always 2 and the P bit belongs to the packet (``RTPPacket/paddingSize``),
/// so neither is stored. Reuse one header and bump its sequence number and timestamp per
/// packet: writing it with ``serialize(into:payload:paddingSize:)`` allocates nothing.
public struct RTPHeader: Hashable, Sendable {
    /// The size of the fixed part of every RTP header.
    public static let fixedSize = 12

    /// The M bit.
    public var marker: Bool
    /// The payload type, 0–127.
    public var payloadType: UInt8
    /// The sequence number.
    public var sequenceNumber: UInt16
    /// The media timestamp.
    public var timestamp: UInt32
    /// The synchronization source.
    public var ssrc: UInt32
    /// Contributing sources, at most 15.
    public var csrcs: [UInt32]
    /// RFC 8285 extension elements, in the order they are written.
    public var extensions: [RTPHeaderExtension]
    /// The RFC 8285 form to write ``extensions`` in. Nil picks the one-byte form when every
    /// element fits it and the two-byte form otherwise (and writes no extension block when
    /// there are no elements). Parsing records the form it found, so an empty block
    /// round-trips.
    public var extensionForm: RTPHeaderExtensionForm?
    /// A non-RFC 8285 extension; written only when ``extensions`` is empty and
    /// ``extensionForm`` is nil.
    public var opaqueExtension: RTPOpaqueHeaderExtension?

    /// A header with the given fields.
    public init(
        payloadType: UInt8, sequenceNumber: UInt16, timestamp: UInt32, ssrc: UInt32,
        marker: Bool = false, csrcs: [UInt32] = [], extensions: [RTPHeaderExtension] = [],
        extensionForm: RTPHeaderExtensionForm? = nil, opaqueExtension: RTPOpaqueHeaderExtension? = nil
    ) {
        self.payloadType = payloadType
        self.sequenceNumber = sequenceNumber
        self.timestamp = timestamp
        self.ssrc = ssrc
        self.marker = marker
        self.csrcs = csrcs
        self.extensions = extensions
        self.extensionForm = extensionForm
        self.opaqueExtension = opaqueExtension
    }

    /// A copy of the header a view parsed (allocates the CSRC and extension arrays).
    public init(_ view: RTPPacketView) {
        self.init(
            payloadType: view.payloadType, sequenceNumber: view.sequenceNumber,
            timestamp: view.timestamp, ssrc: view.ssrc, marker: view.marker)
        csrcs = (0 ..< view.csrcCount).map { view.csrc(at: $0) }
        if let form = view.extensionForm {
            extensionForm = form
            extensions = view.extensions.map { RTPHeaderExtension(id: $0.id, data: Array($0.data)) }
        } else if let profile = view.extensionProfile {
            opaqueExtension = RTPOpaqueHeaderExtension(profile: profile, data: Array(view.extensionBlock))
        }
    }

    // MARK: Extensions

    /// The data of the first element with `id`, or nil.
    public func extensionData(id: UInt8) -> [UInt8]? {
        extensions.first { $0.id == id }?.data
    }

    /// Sets the element with `id` to `data`, replacing an existing one or appending.
    public mutating func setExtension(id: UInt8, data: [UInt8]) {
        if let index = extensions.firstIndex(where: { $0.id == id }) {
            extensions[index].data = data
        } else {
            extensions.append(RTPHeaderExtension(id: id, data: data))
        }
    }

    /// Removes every element with `id`.
    public mutating func removeExtension(id: UInt8) {
        extensions.removeAll { $0.id == id }
    }

    /// The element with `id` decoded as `T`, or nil when absent.
    ///
    /// - Throws: ``RTPError/badExtensionValue(id:length:offset:)`` (offset -1: the header is
    ///   not in a buffer) when the element's size is wrong for `T`.
    public func extensionValue<T: RTPHeaderExtensionValue>(_ type: T.Type, id: UInt8) throws(RTPError) -> T? {
        guard let data = extensionData(id: id) else { return nil }
        let value = data.withUnsafeBytes { T(extensionData: $0) }
        guard let value else { throw .badExtensionValue(id: id, length: data.count, offset: -1) }
        return value
    }

    /// Sets the element with `id` to `value`'s encoding.
    public mutating func setExtensionValue<T: RTPHeaderExtensionValue>(_ value: T, id: UInt8) {
        setExtension(id: id, data: value.extensionData)
    }

    // MARK: Writing

    /// The form ``extensions`` will be written in, or nil when no RFC 8285 block is written.
    public var effectiveExtensionForm: RTPHeaderExtensionForm? {
        if let extensionForm { return extensionForm }
        if extensions.isEmpty { return nil }
        let fitsOneByte = extensions.allSatisfy { RTPHeaderExtensionForm.oneByte.canRepresent(id: $0.id, length: $0.data.count) }
        return fitsOneByte ? .oneByte : .twoByte(appBits: 0)
    }

    /// Bytes the header takes when written: fixed part, CSRCs and extension block.
    public var serializedSize: Int {
        var size = Self.fixedSize + 4 * csrcs.count
        if let form = effectiveExtensionForm {
            let perElement = form == .oneByte ? 1 : 2
            var block = 0
            for element in extensions { block += perElement + element.data.count }
            size += 4 + (block + 3) & ~3
        } else if let opaqueExtension {
            size += 4 + opaqueExtension.data.count
        }
        return size
    }

    /// Writes the header, then `payload`, then `paddingSize` bytes of padding (zeros, the
    /// last one holding the count; 0 for none) into `buffer`, allocating nothing.
    ///
    /// - Returns: the number of bytes written.
    /// - Throws: ``RTPError/bufferTooSmall(needed:available:)``,
    ///   ``RTPError/extensionNotRepresentable(id:length:)`` or
    ///   ``RTPError/fieldOutOfRange(_:)`` (payload type, CSRC count, padding size, opaque
    ///   extension length).
    public func serialize(
        into buffer: UnsafeMutableRawBufferPointer, payload: UnsafeRawBufferPointer, paddingSize: Int = 0
    ) throws(RTPError) -> Int {
        guard payloadType <= 127 else { throw .fieldOutOfRange("payload type \(payloadType) is above 127") }
        guard csrcs.count <= 15 else { throw .fieldOutOfRange("\(csrcs.count) CSRCs, at most 15 fit") }
        guard (0 ... 255).contains(paddingSize) else { throw .fieldOutOfRange("padding of \(paddingSize) bytes, 0–255 fit") }
        let form = effectiveExtensionForm
        if let form {
            for element in extensions where !form.canRepresent(id: element.id, length: element.data.count) {
                throw .extensionNotRepresentable(id: element.id, length: element.data.count)
            }
        } else if let opaqueExtension {
            guard opaqueExtension.data.count % 4 == 0, opaqueExtension.data.count <= 0x3FFFC else {
                throw .fieldOutOfRange("opaque extension of \(opaqueExtension.data.count) bytes")
            }
        }
        let headerSize = serializedSize
        let total = headerSize + payload.count + paddingSize
        guard total <= buffer.count else { throw .bufferTooSmall(needed: total, available: buffer.count) }

        let hasExtension = form != nil || opaqueExtension != nil
        buffer[0] = 0x80 | (paddingSize > 0 ? 0x20 : 0) | (hasExtension ? 0x10 : 0) | UInt8(csrcs.count)
        buffer[1] = (marker ? 0x80 : 0) | payloadType
        buffer.put16(sequenceNumber, at: 2)
        buffer.put32(timestamp, at: 4)
        buffer.put32(ssrc, at: 8)
        var position = Self.fixedSize
        for csrc in csrcs {
            buffer.put32(csrc, at: position)
            position += 4
        }
        if let form {
            let blockStart = position + 4
            let blockEnd = headerSize
            buffer.put16(form.profile, at: position)
            buffer.put16(UInt16((blockEnd - blockStart) / 4), at: position + 2)
            position = blockStart
            for element in extensions {
                if form == .oneByte {
                    buffer[position] = element.id << 4 | UInt8(element.data.count - 1)
                    position += 1
                } else {
                    buffer[position] = element.id
                    buffer[position + 1] = UInt8(element.data.count)
                    position += 2
                }
                buffer.putBytes(element.data, at: position)
                position += element.data.count
            }
            buffer.zero(position, blockEnd - position)
            position = blockEnd
        } else if let opaqueExtension {
            buffer.put16(opaqueExtension.profile, at: position)
            buffer.put16(UInt16(opaqueExtension.data.count / 4), at: position + 2)
            buffer.putBytes(opaqueExtension.data, at: position + 4)
            position += 4 + opaqueExtension.data.count
        }
        buffer.putBytes(payload, at: position)
        position += payload.count
        if paddingSize > 0 {
            buffer.zero(position, paddingSize - 1)
            buffer[position + paddingSize - 1] = UInt8(paddingSize)
            position += paddingSize
        }
        return position
    }
}
