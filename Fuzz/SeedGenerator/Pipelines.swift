import Confer
import ConferMedia
import ConferRTP
import FuzzTraffic

// Seeds for the targets that decode their input into operations (FuzzHostPipeline,
// FuzzReceivePipeline, FuzzVideoJitterBuffer). Each is a long script of the operations the
// target's header comment describes, so libFuzzer starts from inputs that already hold many
// datagrams, joins and stalls and mutates those instead of growing them from a few bytes.

/// The operation bytes of a pipeline target: bits 3–7 move time by (n·n) ms, bits 0–2 say what.
struct OperationScript {
    var bytes: [UInt8]
    /// Virtual time the script has moved so far, as the target will count it.
    var elapsed = TimeDelta.zero
    /// Each destination's replay position, as the target keeps it.
    var cursors = [0, 0, 0, 0]

    init(flags: UInt8) { bytes = [flags] }

    mutating func op(_ kind: UInt8, step: UInt8 = 0, _ arguments: [UInt8] = []) {
        precondition(step < 32 && kind < 8)
        bytes.append(step << 3 | kind)
        bytes += arguments
        elapsed = elapsed + .milliseconds(Int64(step) * Int64(step))
    }

    /// Operation 5: the next `count` recorded datagrams of `destination` (nil: no
    /// destination byte, the receive target), at their recorded spacing.
    mutating func replay(_ count: Int, to destination: Int?, step: UInt8 = 0) {
        op(5, step: step, (destination.map { [UInt8($0)] } ?? []) + [UInt8(count - 1)])
        let recorded = FuzzMeeting.uplink
        let slot = destination.map { $0 < 3 ? $0 : 3 } ?? 0
        for _ in 0 ..< count {
            let index = cursors[slot] % recorded.count
            cursors[slot] += 1
            elapsed = elapsed + (index == 0 ? .milliseconds(20) : max(recorded[index].time - recorded[index - 1].time, .zero))
        }
    }

    /// Operation 0 or 1: `datagram` as it is or protected with the key of its direction.
    mutating func raw(_ datagram: [UInt8], to destination: Int?, protecting: Bool, step: UInt8 = 0) {
        let length = [UInt8(datagram.count >> 8), UInt8(datagram.count & 0xFF)]
        op(protecting ? 1 : 0, step: step, (destination.map { [UInt8($0)] } ?? []) + length + datagram)
    }
}

/// Indices of the recorded uplink by kind, so scripts can pick media or feedback to damage.
struct UplinkIndex {
    var video: [Int] = [], audio: [Int] = [], senderReports: [Int] = [], feedback: [Int] = []

    init() {
        // Operation 2 names a datagram with one byte.
        precondition(FuzzMeeting.uplink.count <= 256, "\(FuzzMeeting.uplink.count) recorded datagrams")
        for (index, datagram) in FuzzMeeting.uplink.enumerated() {
            let route = datagram.bytes.withUnsafeBytes { RTPDatagramRoute(classifying: $0) }
            switch route {
            case .media where datagram.bytes[1] & 0x7F == 111: audio.append(index)
            case .media: video.append(index)
            case .senderReport: senderReports.append(index)
            default: feedback.append(index)
            }
        }
    }
}

/// Datagrams of another real call (VP8, VP9, H.264 senders and their receivers), for the
/// raw-datagram operations: streams the pipeline does not know, feedback about streams it
/// sent, XR and BYE packets.
struct ForeignTraffic {
    let datagrams: [[UInt8]]

    init() {
        var picked: [[UInt8]] = []
        for codec in [Codec.vp8, .vp9, .h264] {
            let sent = loopback(codec: codec, duration: .seconds(0.6), seed: 5)
            // A few of each kind: media, retransmissions, sender reports, every feedback form.
            var perKind: [String: Int] = [:]
            for datagram in sent {
                let kind = "\(datagram.fromSender) \(datagram.route) \(datagram.isRTP ? datagram.payloadType : datagram.bytes[1])"
                if perKind[kind, default: 0] < 3 {
                    perKind[kind, default: 0] += 1
                    picked.append(datagram.bytes)
                }
            }
        }
        datagrams = picked
    }
}

/// A seeded choice, so the generated scripts are the same on every run.
struct Dice {
    var random: SeededRandom
    init(_ seed: UInt64) { random = SeededRandom(seed: seed) }
    mutating func below(_ n: Int) -> Int { Int.random(in: 0 ..< n, using: &random) }
    mutating func chance(_ p: Double) -> Bool { Double.random(in: 0 ..< 1, using: &random) < p }
    mutating func pick<T>(_ items: [T]) -> T { items[below(items.count)] }
    mutating func byte() -> UInt8 { UInt8(below(256)) }
}

/// What a pipeline script mixes in, beside replaying the recorded uplink.
struct Mix {
    var mutations = 0.0
    var raw = 0.0
    var membership = 0.0
    var stalls = 0.0
    var rtt = 0.0
    var recordedByIndex = 0.1
    var strangers = false
}

/// A script of operations for the host target (`participants` seats, destinations 0…3) or,
/// with `participants` nil, for the receive target, covering about `duration` of virtual time.
func pipelineScript(flags: UInt8, participants: Int?, duration: TimeDelta, mix: Mix, seed: UInt64,
                    foreign: ForeignTraffic, uplink: UplinkIndex) -> [UInt8] {
    var dice = Dice(seed)
    var script = OperationScript(flags: flags)
    let recorded = FuzzMeeting.uplink
    func destination() -> Int? {
        guard let participants else { return nil }
        if mix.strangers && dice.chance(0.05) { return 3 }
        return dice.below(participants)
    }
    while script.elapsed < duration {
        let roll = Double.random(in: 0 ..< 1, using: &dice.random)
        var threshold = mix.mutations
        if roll < threshold {
            // Damage a real datagram: before protection in its header or payload, or after
            // protection (the SRTP tag) and sometimes cut short.
            let index = dice.pick([uplink.video, uplink.audio, uplink.feedback, uplink.senderReports].filter { !$0.isEmpty })
            let chosen = dice.pick(index)
            let size = recorded[chosen].bytes.count
            let offset = dice.chance(0.5) ? dice.below(min(size, 24)) : dice.below(size)
            let xor: UInt8 = dice.chance(0.15) ? 0 : UInt8(1 << dice.below(8))
            script.op(dice.chance(0.6) ? 3 : 4, (destination().map { [UInt8($0)] } ?? []) + [UInt8(chosen & 0xFF), UInt8(offset & 0xFF), xor == 0 && dice.chance(0.5) ? 1 : xor])
            continue
        }
        threshold += mix.raw
        if roll < threshold {
            var datagram = dice.pick(foreign.datagrams)
            if dice.chance(0.2) { datagram.removeLast(dice.below(datagram.count / 2)) }
            script.raw(datagram, to: destination(), protecting: dice.chance(0.7))
            continue
        }
        threshold += mix.membership
        if roll < threshold, let participants {
            let action = dice.pick([0, 1, 1, 2, 3, 4, 5, 6] as [UInt8])
            script.op(6, [UInt8(dice.below(participants)) << 3 | action])
            continue
        }
        threshold += mix.stalls
        if roll < threshold {
            script.op(7, step: UInt8(4 + dice.below(10)))
            continue
        }
        threshold += mix.rtt
        if roll < threshold, participants == nil {
            script.op(6, step: UInt8(dice.below(3)), [UInt8(5 + dice.below(100))])
            continue
        }
        threshold += mix.recordedByIndex
        if roll < threshold {
            let index = dice.pick(dice.chance(0.5) ? uplink.feedback + uplink.senderReports : uplink.video + uplink.audio)
            script.op(2, step: UInt8(dice.below(3)), (destination().map { [UInt8($0)] } ?? []) + [UInt8(index & 0xFF)])
            continue
        }
        // The recorded uplink at its own pace; with several participants, the first one's
        // replay moves time and the others send the same datagrams at the same moments
        // (operation 2 moves no time), so every seat is busy for the whole second.
        let count = 1 + dice.below(participants == nil ? 8 : 4)
        guard let participants else {
            script.replay(count, to: nil)
            continue
        }
        let first = script.cursors[0]
        script.replay(count, to: 0)
        for other in 1 ..< participants {
            for index in first ..< first + count { script.op(2, [UInt8(other), UInt8(index % recorded.count)]) }
        }
    }
    return script.bytes
}

/// Seeds for FuzzHostPipeline: two and three participants, with and without SRTP, 20 and
/// 60 ms Opus, churn, stalls, damage and foreign traffic.
func hostPipelineSeeds(_ foreign: ForeignTraffic, _ uplink: UplinkIndex) -> [(String, [UInt8])] {
    let second = TimeDelta.seconds(0.95)
    let cases: [(String, UInt8, Int, Mix)] = [
        ("two-replay", 0, 2, Mix()),
        ("two-srtp-replay", 1 | 3 << 3, 2, Mix(mutations: 0.1)),
        ("three-churn", 2, 3, Mix(membership: 0.12, strangers: true)),
        ("three-srtp-churn-stalls", 3 | 9 << 3, 3, Mix(membership: 0.08, stalls: 0.04, strangers: true)),
        ("two-opus60", 4, 2, Mix(mutations: 0.05, membership: 0.03)),
        ("three-opus60-srtp", 7 | 5 << 3, 3, Mix(mutations: 0.05, raw: 0.05, stalls: 0.02)),
        ("two-damage", 0, 2, Mix(mutations: 0.35)),
        ("two-srtp-foreign", 1 | 17 << 3, 2, Mix(raw: 0.25, strangers: true)),
        ("three-everything", 2, 3, Mix(mutations: 0.15, raw: 0.1, membership: 0.08, stalls: 0.03, recordedByIndex: 0.15, strangers: true)),
        ("three-srtp-everything", 3 | 30 << 3, 3, Mix(mutations: 0.15, raw: 0.1, membership: 0.08, stalls: 0.03, recordedByIndex: 0.15, strangers: true)),
    ]
    return cases.enumerated().map { index, entry in
        (entry.0, pipelineScript(flags: entry.1, participants: entry.2, duration: second, mix: entry.3,
                                 seed: UInt64(100 + index), foreign: foreign, uplink: uplink))
    }
}

/// Seeds for FuzzReceivePipeline: the whole recorded uplink and more, with and without SRTP.
func receivePipelineSeeds(_ foreign: ForeignTraffic, _ uplink: UplinkIndex) -> [(String, [UInt8])] {
    let duration = TimeDelta.seconds(1.9)
    let cases: [(String, UInt8, Mix)] = [
        ("replay", 0, Mix(rtt: 0.02)),
        ("srtp-replay", 1 | 2 << 1, Mix(rtt: 0.02)),
        ("srtp-gcm-replay", 1 | 5 << 1, Mix(mutations: 0.05, rtt: 0.02)),
        ("damage", 0, Mix(mutations: 0.35, rtt: 0.02)),
        ("srtp-damage", 1 | 7 << 1, Mix(mutations: 0.3)),
        ("stalls", 0, Mix(stalls: 0.08, rtt: 0.05)),
        ("foreign", 0, Mix(raw: 0.25, rtt: 0.03)),
        ("srtp-everything", 1 | 11 << 1, Mix(mutations: 0.15, raw: 0.1, stalls: 0.04, rtt: 0.04, recordedByIndex: 0.2)),
        ("everything", 0, Mix(mutations: 0.15, raw: 0.1, stalls: 0.04, rtt: 0.04, recordedByIndex: 0.2)),
    ]
    return cases.enumerated().map { index, entry in
        (entry.0, pipelineScript(flags: entry.1, participants: nil, duration: duration, mix: entry.2,
                                 seed: UInt64(200 + index), foreign: foreign, uplink: uplink))
    }
}

/// Seeds for FuzzVideoJitterBuffer: the video packets of real VP8, VP9 and H.264 calls as
/// records (flags, sequence step, timestamp step, time step, length, payload), in order,
/// reordered, lost, duplicated and retransmitted, with polls, decoder failures and RTT changes.
func jitterBufferSeeds() -> [(String, [UInt8])] {
    var seeds: [(String, [UInt8])] = []
    for (codecIndex, (codec, name)) in [(Codec.vp8, "vp8"), (.vp9, "vp9"), (.h264, "h264")].enumerated() {
        // Small packets, so each payload fits the record's one-byte length.
        let video = loopback(codec: codec, maximumPacketSize: 240, duration: .seconds(1.2), seed: UInt64(20 + codecIndex))
            .filter { $0.fromSender && $0.isRTP && $0.payloadType == 96 }
        let packets = video.map { datagram in
            datagram.bytes.withUnsafeBytes { bytes in
                let view = try! RTPPacketView(bytes)
                return (sequence: view.sequenceNumber, timestamp: view.timestamp, marker: view.marker,
                        time: datagram.time, payload: Array(view.payload.prefix(255)))
            }
        }
        for (variant, nack) in [("in-order", false), ("lossy-nack", true), ("reordered-nack", true)] {
            var dice = Dice(UInt64(300 + codecIndex * 10 + seeds.count))
            var out: [UInt8] = [UInt8(codecIndex) | (nack ? 0x80 : 0)]
            var order = Array(packets.indices)
            if variant == "reordered-nack" {
                for i in stride(from: 0, to: order.count - 3, by: 3) where dice.chance(0.5) { order.swapAt(i, i + 2) }
            }
            var lastSequence = packets[0].sequence &- 1, lastTimestamp = packets[0].timestamp, lastTime = packets[0].time
            var skipped: [Int] = []
            func record(_ flags: UInt8, _ index: Int) {
                let packet = packets[index]
                let sequenceStep = packet.sequence &- lastSequence, timestampStep = UInt16(truncatingIfNeeded: packet.timestamp &- lastTimestamp)
                let timeStep = UInt8(min(max((packet.time - lastTime).milliseconds, 0), 255))
                out += [flags | (packet.marker ? 1 : 0), UInt8(sequenceStep >> 8), UInt8(sequenceStep & 0xFF),
                        UInt8(timestampStep >> 8), UInt8(timestampStep & 0xFF), timeStep, UInt8(packet.payload.count)] + packet.payload
                (lastSequence, lastTimestamp, lastTime) = (packet.sequence, packet.timestamp, max(lastTime, packet.time))
            }
            for index in order {
                if variant == "lossy-nack" && dice.chance(0.1) {
                    skipped.append(index)
                    continue
                }
                record(0, index)
                if dice.chance(0.05) { record(0, index) }   // a duplicate
                if dice.chance(0.08) { out += [0x04, 0, 0, 0, 0, UInt8(5 + dice.below(40)), 0] }   // a poll
                if dice.chance(0.03) { out += [0x20 | UInt8(1 + dice.below(8)), 0, 0, 0, 0, 0, 0] }   // RTT change
                if dice.chance(0.02) { out += [0x08, 0, 0, 0, 0, 1, 0] }   // the decoder failed
                // What was lost arrives as retransmissions a little later.
                if skipped.count >= 2 {
                    for lost in skipped { record(0x02, lost) }
                    skipped.removeAll()
                }
            }
            seeds.append(("\(name)-\(variant)", out))
        }
    }
    return seeds
}
