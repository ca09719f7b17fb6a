#if canImport(Glibc)
internal import Glibc
#elseif canImport(Darwin)
internal import Darwin
#endif
internal import ConferMedia

/// Decoded audio not yet played (NetEQ's sync buffer): a FIFO of interleaved samples that
/// decoding and concealment append to and every pull takes 10 ms from, with the last
/// played samples kept behind it so preemptive expansion can match against them.
///
/// It also remembers, for each run of samples, what made them and when their packet
/// arrived, so statistics count concealment and the W3C jitter-buffer delay when samples
/// are played rather than when they are made. Storage is allocated once; nothing here
/// allocates afterwards.
struct AudioJitterBufferSampleQueue: ~Copyable {
    /// What produced a run of samples.
    enum Kind: UInt8 {
        /// Decoded from a packet or its FEC.
        case decoded
        /// Packet-loss concealment (or the comfort noise it fades into) with sound in it.
        case concealed
        /// Concealment that is silent or comfort noise.
        case silentConcealed
        /// Comfort noise while the sender is in DTX.
        case comfortNoise
        /// Silence before anything was played.
        case silence
    }

    /// A run of samples from one source.
    struct Segment {
        var frames: Int
        var kind: Kind
        var arrival: Timestamp
    }

    /// What one pull played.
    struct Tally {
        var decoded = 0
        var concealed = 0
        var silentConcealed = 0
        var comfortNoise = 0
        var silence = 0
        /// Σ (play time − arrival) over decoded samples, in seconds.
        var delay = 0.0
        var concealmentEvents = 0
    }

    let channels: Int
    /// Frames the storage holds, history included.
    let capacity: Int
    /// Played frames kept behind the unplayed ones.
    let historyLimit: Int
    private let storage: UnsafeMutablePointer<Int16>
    /// Storage index (in frames) of the first unplayed frame.
    private var start = 0
    /// Unplayed frames.
    private(set) var count = 0
    /// Played frames still held behind `start`.
    private(set) var history = 0
    /// How many of the last played frames were decoded audio, back to the last synthetic one.
    private(set) var realHistory = 0

    private static let segmentCapacity = 256
    private let segments: UnsafeMutablePointer<Segment>
    private var segmentHead = 0
    private var segmentCount = 0
    private var lastPoppedConcealed = false

    init(channels: Int, capacity: Int, historyLimit: Int) {
        self.channels = channels
        self.capacity = capacity
        self.historyLimit = historyLimit
        storage = .allocate(capacity: capacity * channels)
        storage.initialize(repeating: 0, count: capacity * channels)
        segments = .allocate(capacity: Self.segmentCapacity)
        segments.initialize(repeating: Segment(frames: 0, kind: .silence, arrival: .zero), count: Self.segmentCapacity)
    }

    deinit {
        storage.deallocate()
        segments.deallocate()
    }

    /// `frames` frames starting `offset` frames after the first unplayed one (negative:
    /// into the played history). The pointer is valid until the next mutating call.
    func frames(from offset: Int, count frames: Int) -> UnsafeMutableBufferPointer<Int16> {
        precondition(offset >= -history && frames >= 0 && offset + frames <= count, "queue range out of bounds")
        return UnsafeMutableBufferPointer(start: storage + (start + offset) * channels, count: frames * channels)
    }

    /// Adds `frames` frames of `kind` at the end and returns them for the caller to fill
    /// at once; fewer when the storage is full (it never is when callers respect the limits).
    mutating func append(frames requested: Int, kind: Kind, arrival: Timestamp) -> UnsafeMutableBufferPointer<Int16> {
        let frames = makeRoom(for: max(0, requested))
        let buffer = UnsafeMutableBufferPointer(start: storage + (start + count) * channels, count: frames * channels)
        count += frames
        pushSegment(Segment(frames: frames, kind: kind, arrival: arrival))
        return buffer
    }

    /// Frames at the front that are decoded audio, up to the first synthetic run.
    var decodedPrefix: Int {
        var total = 0
        for index in 0..<segmentCount {
            let segment = segments[(segmentHead + index) % Self.segmentCapacity]
            if segment.frames == 0 { continue }
            guard segment.kind == .decoded else { break }
            total += segment.frames
        }
        return min(total, count)
    }

    /// Copies the first `frames` unplayed frames into `output` and accounts for them as
    /// played at `now`.
    mutating func pop(_ frames: Int, into output: UnsafeMutableBufferPointer<Int16>, now: Timestamp) -> Tally {
        let frames = min(frames, count, output.count / channels)
        if let destination = output.baseAddress {
            destination.update(from: storage + start * channels, count: frames * channels)
        }
        var tally = Tally()
        var remaining = frames
        while remaining > 0, segmentCount > 0 {
            let index = segmentHead
            let taken = min(remaining, segments[index].frames)
            let segment = segments[index]
            switch segment.kind {
            case .decoded:
                tally.decoded += taken
                tally.delay += Double(taken) * (now - segment.arrival).seconds
            case .concealed: tally.concealed += taken
            case .silentConcealed: tally.silentConcealed += taken
            case .comfortNoise: tally.comfortNoise += taken
            case .silence: tally.silence += taken
            }
            let isConcealed = segment.kind == .concealed || segment.kind == .silentConcealed
            if taken > 0 {
                if isConcealed && !lastPoppedConcealed { tally.concealmentEvents += 1 }
                lastPoppedConcealed = isConcealed
                realHistory = segment.kind == .decoded ? min(realHistory + taken, historyLimit) : 0
            }
            segments[index].frames -= taken
            remaining -= taken
            if segments[index].frames == 0 {
                segmentHead = (segmentHead + 1) % Self.segmentCapacity
                segmentCount -= 1
            }
        }
        start += frames
        count -= frames
        history = min(history + frames, start)
        return tally
    }

    /// Removes `frames` unplayed frames starting `offset` frames in, closing the gap.
    mutating func remove(from offset: Int, frames: Int) {
        let frames = min(max(0, frames), count - offset)
        guard frames > 0, offset >= 0 else { return }
        let destination = storage + (start + offset) * channels
        let tail = count - offset - frames
        memmove(destination, destination + frames * channels, tail * channels * MemoryLayout<Int16>.stride)
        count -= frames
        // Take the frames out of the segments covering them (emptied runs stay until popped).
        let end = offset + frames
        var position = 0
        for index in 0..<segmentCount {
            let slot = (segmentHead + index) % Self.segmentCapacity
            let length = segments[slot].frames
            let overlap = min(end, position + length) - max(offset, position)
            if overlap > 0 { segments[slot].frames -= overlap }
            position += length
            if position >= end { break }
        }
    }

    /// Inserts `frames` frames in front of the unplayed ones (their contents are the
    /// caller's to write) and returns them; they count as part of the first run.
    mutating func insertAtFront(frames requested: Int) -> UnsafeMutableBufferPointer<Int16> {
        guard count > 0 else { return UnsafeMutableBufferPointer(start: storage, count: 0) }
        let frames = makeRoom(for: max(0, requested))
        let first = storage + start * channels
        memmove(first + frames * channels, first, count * channels * MemoryLayout<Int16>.stride)
        count += frames
        for index in 0..<segmentCount {
            let slot = (segmentHead + index) % Self.segmentCapacity
            if segments[slot].frames > 0 || index == segmentCount - 1 {
                segments[slot].frames += frames
                break
            }
        }
        return UnsafeMutableBufferPointer(start: first, count: frames * channels)
    }

    /// Fades the last `frames` unplayed frames out to silence, before a discontinuity.
    mutating func fadeOutTail(frames requested: Int) {
        let frames = min(requested, count)
        guard frames > 0 else { return }
        let tail = storage + (start + count - frames) * channels
        for frame in 0..<frames {
            let gain = Float(frames - frame) / Float(frames + 1)
            for channel in 0..<channels {
                let index = frame * channels + channel
                tail[index] = Int16((Float(tail[index]) * gain).rounded())
            }
        }
    }

    /// Makes room at the end for up to `frames` frames, sliding the kept history and the
    /// unplayed frames to the front of the storage when needed; returns how many fit.
    private mutating func makeRoom(for frames: Int) -> Int {
        if start + count + frames > capacity {
            let keep = min(history, historyLimit, max(0, capacity - count - frames))
            let source = start - keep
            if source > 0 {
                memmove(storage, storage + source * channels, (keep + count) * channels * MemoryLayout<Int16>.stride)
            }
            start = keep
            history = keep
            realHistory = min(realHistory, keep)
        }
        return min(frames, capacity - start - count)
    }

    private mutating func pushSegment(_ segment: Segment) {
        guard segment.frames > 0 else { return }
        if segmentCount > 0 {
            let last = (segmentHead + segmentCount - 1) % Self.segmentCapacity
            if segments[last].kind == segment.kind && segments[last].arrival == segment.arrival
                || segmentCount == Self.segmentCapacity {
                segments[last].frames += segment.frames
                return
            }
        }
        segments[(segmentHead + segmentCount) % Self.segmentCapacity] = segment
        segmentCount += 1
    }
}
