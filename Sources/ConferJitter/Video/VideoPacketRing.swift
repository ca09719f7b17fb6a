import ConferMedia
import ConferRTP

/// What the jitter buffer knows of one buffered packet besides its payload: plain data, so
/// reading it copies no reference (payloads live in their own storage).
struct VideoPacketInfo: Sendable {
    var isOccupied = false
    /// Unwrapped.
    var sequenceNumber: Int64 = 0
    var timestamp: UInt32 = 0
    var boundaries = PayloadBoundaries(isPartitionHead: false, isFrameHead: false, isPartitionTail: false)
    /// An empty payload (RTP padding): it takes a sequence number but belongs to no frame.
    var isPadding = false
    /// A frame head that is certainly the first packet of its frame (see `VideoPayloadReader`).
    var isCertainHead = false
    var isRetransmission = false
    /// Already part of a complete frame waiting in the frame queue.
    var isInFrame = false
    var arrival = Timestamp.zero
    /// Bytes of payload in the packet's slot.
    var payloadLength = 0
}

/// The payload bytes of every slot of a ``VideoPacketRing``, in one allocation made when
/// the ring is: a slot of the largest payload accepted per packet, so storing a packet
/// never allocates — not even the first time a slot is used (one allocation per slot, as
/// an array per slot would make, is one per packet until the ring has wrapped once). The
/// allocation is address space more than memory: pages are committed as packets fill them.
///
/// `@unchecked Sendable`: the bytes are written only by a ring's mutating methods after
/// `isKnownUniquelyReferenced` has shown that no other ring shares this storage (a shared
/// one is copied first), so storage that more than one value — or thread — can see is
/// never written, only read.
final class VideoPayloadStorage: @unchecked Sendable {
    let bytes: UnsafeMutableRawBufferPointer
    let slotSize: Int

    init(slots: Int, slotSize: Int) {
        self.slotSize = max(1, slotSize)
        bytes = .allocate(byteCount: slots * self.slotSize, alignment: 16)
    }

    /// A storage with the same bytes, for a ring about to write into a shared one.
    func copy() -> VideoPayloadStorage {
        let copy = VideoPayloadStorage(slots: bytes.count / slotSize, slotSize: slotSize)
        copy.bytes.copyMemory(from: UnsafeRawBufferPointer(bytes))
        return copy
    }

    deinit { bytes.deallocate() }
}

/// The packets between the decode position and the newest packet, in a ring indexed by
/// unwrapped sequence number. Memory is `capacity` slots of `maxPayloadSize` bytes, reserved
/// up front and reused for later packets (see ``VideoPayloadStorage``).
struct VideoPacketRing: Sendable {
    private var infos: [VideoPacketInfo]
    private var storage: VideoPayloadStorage
    let capacity: Int
    private let mask: Int
    private(set) var count = 0

    /// A ring of at least `capacity` slots (a power of two, 64…32768) for payloads of up to
    /// `maxPayloadSize` bytes (larger ones must be refused before ``store(_:timestamp:boundaries:isCertainHead:isRetransmission:arrival:payload:)``).
    init(capacity: Int, maxPayloadSize: Int) {
        var size = 64
        while size < min(capacity, 32_768) { size <<= 1 }
        self.capacity = size
        mask = size - 1
        infos = Array(repeating: VideoPacketInfo(), count: size)
        // No RTP payload over UDP is longer than 65,507 bytes, whatever the configuration says.
        storage = VideoPayloadStorage(slots: size, slotSize: min(max(maxPayloadSize, 1), 65_536))
    }

    @inline(__always)
    private func index(_ sequenceNumber: Int64) -> Int { Int(truncatingIfNeeded: sequenceNumber) & mask }

    @inline(__always)
    func isPresent(_ sequenceNumber: Int64) -> Bool {
        let info = infos[index(sequenceNumber)]
        return info.isOccupied && info.sequenceNumber == sequenceNumber
    }

    /// The facts of a present packet.
    @inline(__always)
    subscript(_ sequenceNumber: Int64) -> VideoPacketInfo { infos[index(sequenceNumber)] }

    /// Calls `body` with the payload of a present packet.
    @inline(__always)
    func withPayload<R>(_ sequenceNumber: Int64, _ body: (UnsafeRawBufferPointer) -> R) -> R {
        let i = index(sequenceNumber)
        let start = i * storage.slotSize
        return body(UnsafeRawBufferPointer(rebasing: storage.bytes[start ..< start + infos[i].payloadLength]))
    }

    /// Stores a packet whose payload fits a slot (the caller checked it against the maximum).
    mutating func store(_ sequenceNumber: Int64, timestamp: UInt32, boundaries: PayloadBoundaries, isCertainHead: Bool,
                        isRetransmission: Bool, arrival: Timestamp, payload: UnsafeRawBufferPointer) {
        let i = index(sequenceNumber)
        let length = min(payload.count, storage.slotSize)
        if !infos[i].isOccupied { count += 1 }
        infos[i] = VideoPacketInfo(isOccupied: true, sequenceNumber: sequenceNumber, timestamp: timestamp,
                                   boundaries: boundaries, isPadding: payload.isEmpty, isCertainHead: isCertainHead,
                                   isRetransmission: isRetransmission, isInFrame: false, arrival: arrival,
                                   payloadLength: length)
        guard length > 0 else { return }
        if !isKnownUniquelyReferenced(&storage) { storage = storage.copy() }
        let start = i * storage.slotSize
        UnsafeMutableRawBufferPointer(rebasing: storage.bytes[start ..< start + length])
            .copyMemory(from: UnsafeRawBufferPointer(rebasing: payload[0 ..< length]))
    }

    mutating func markInFrame(_ sequenceNumber: Int64) {
        infos[index(sequenceNumber)].isInFrame = true
    }

    /// Frees a packet's slot; whether it held a packet that was not padding.
    @discardableResult
    mutating func release(_ sequenceNumber: Int64) -> Bool {
        let i = index(sequenceNumber)
        guard infos[i].isOccupied, infos[i].sequenceNumber == sequenceNumber else { return false }
        infos[i].isOccupied = false
        count -= 1
        return !infos[i].isPadding
    }

    mutating func releaseAll() {
        for i in infos.indices where infos[i].isOccupied {
            infos[i].isOccupied = false
        }
        count = 0
    }

    /// Bytes of payload storage reserved.
    var retainedBytes: Int { storage.bytes.count }
}

/// Which of the last `size` sequence numbers were received, so a duplicate is told from a
/// packet that is merely late even after its slot was freed.
struct VideoReceivedWindow: Sendable {
    private var words: [UInt64]
    let size: Int
    private var newest: Int64?

    init(size: Int) {
        var bits = 4096
        while bits < size { bits <<= 1 }
        self.size = bits
        words = Array(repeating: 0, count: bits / 64)
    }

    /// Whether `sequenceNumber` was received; nil when it is too old to know.
    func contains(_ sequenceNumber: Int64) -> Bool? {
        guard let newest else { return false }
        if sequenceNumber > newest { return false }
        if newest - sequenceNumber >= Int64(size) { return nil }
        let bit = Int(truncatingIfNeeded: sequenceNumber) & (size - 1)
        return words[bit >> 6] & (1 << UInt64(bit & 63)) != 0
    }

    mutating func insert(_ sequenceNumber: Int64) {
        if let newest, sequenceNumber > newest {
            if sequenceNumber - newest >= Int64(size) {
                for i in words.indices { words[i] = 0 }
            } else {
                var cleared = newest + 1
                while cleared < sequenceNumber {
                    clear(cleared)
                    cleared += 1
                }
            }
            self.newest = sequenceNumber
        } else if newest == nil {
            newest = sequenceNumber
        } else if newest! - sequenceNumber >= Int64(size) {
            return
        }
        let bit = Int(truncatingIfNeeded: sequenceNumber) & (size - 1)
        words[bit >> 6] |= 1 << UInt64(bit & 63)
    }

    mutating func reset() {
        for i in words.indices { words[i] = 0 }
        newest = nil
    }

    private mutating func clear(_ sequenceNumber: Int64) {
        let bit = Int(truncatingIfNeeded: sequenceNumber) & (size - 1)
        words[bit >> 6] &= ~(1 << UInt64(bit & 63))
    }
}
