import ConferMedia
import ConferRTP

/// What the jitter buffer knows of one buffered packet besides its payload: plain data, so
/// reading it copies no reference (payloads live in their own array).
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
}

/// The packets between the decode position and the newest packet, in a ring indexed by
/// unwrapped sequence number. Memory is `capacity` slots, each holding at most one payload,
/// whose storage is reused for later packets.
struct VideoPacketRing: Sendable {
    private var infos: [VideoPacketInfo]
    private var payloads: [[UInt8]]
    let capacity: Int
    private let mask: Int
    private(set) var count = 0

    init(capacity: Int) {
        var size = 64
        while size < min(capacity, 32_768) { size <<= 1 }
        self.capacity = size
        mask = size - 1
        infos = Array(repeating: VideoPacketInfo(), count: size)
        payloads = Array(repeating: [], count: size)
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
        payloads[index(sequenceNumber)].withUnsafeBytes(body)
    }

    mutating func store(_ sequenceNumber: Int64, timestamp: UInt32, boundaries: PayloadBoundaries, isCertainHead: Bool,
                        isRetransmission: Bool, arrival: Timestamp, payload: UnsafeRawBufferPointer) {
        let i = index(sequenceNumber)
        if !infos[i].isOccupied { count += 1 }
        infos[i] = VideoPacketInfo(isOccupied: true, sequenceNumber: sequenceNumber, timestamp: timestamp,
                                   boundaries: boundaries, isPadding: payload.isEmpty, isCertainHead: isCertainHead,
                                   isRetransmission: isRetransmission, isInFrame: false, arrival: arrival)
        payloads[i].removeAll(keepingCapacity: true)
        payloads[i].append(contentsOf: payload)
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
        payloads[i].removeAll(keepingCapacity: true)
        count -= 1
        return !infos[i].isPadding
    }

    mutating func releaseAll() {
        for i in infos.indices where infos[i].isOccupied {
            infos[i].isOccupied = false
            payloads[i].removeAll(keepingCapacity: true)
        }
        count = 0
    }

    /// Bytes of payload storage held (the payload arrays keep their capacity for reuse).
    var retainedBytes: Int { payloads.reduce(0) { $0 + $1.capacity } }
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
