// Writes the seed corpus of every fuzz target that Confer's own code can make: real RTP,
// RTCP and SRTP packets of calls in virtual time, encoded frames, signaling scripts,
// layouts, SDP and keys, network traces, and the operation scripts of the pipeline targets.
// Media files (IVF, Y4M, WAV, Ogg Opus, PNG, Annex-B) come from ffmpeg in Fuzz/make-seeds,
// which runs this. Everything is seeded and in virtual time: a rerun writes the same bytes.
import Confer
import ConferCodecs
import ConferMedia
import ConferMixer
import ConferNet
import ConferRTP
import ConferSession
import ConferSRTP
import FuzzTraffic
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Never called: the generator is linked like the targets (-sanitize=fuzzer), and libFuzzer's
/// own `main`, though replaced by ours, still names this.
@_cdecl("LLVMFuzzerTestOneInput")
public func unusedFuzzEntry(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt { 0 }

@_cdecl("FuzzSeedGenerator_main")
func generatorMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    let root = argc > 1 ? String(cString: argv![1]!) : "Seeds"
    var seeds = SeedWriter(root: root)
    let foreign = ForeignTraffic()
    let uplink = UplinkIndex()
    seeds.write("FuzzHostPipeline", hostPipelineSeeds(foreign, uplink))
    seeds.write("FuzzReceivePipeline", receivePipelineSeeds(foreign, uplink))
    seeds.write("FuzzVideoJitterBuffer", jitterBufferSeeds())
    packetSeeds(&seeds)
    codecSeeds(&seeds)
    let rooms = roomScripts()
    seeds.write("FuzzRoomState", rooms.seeds)
    let calls = callScripts()
    seeds.write("FuzzCallSwitchboard", calls.seeds)
    signalSeeds(&seeds, server: rooms.serverMessages, callServer: calls.serverMessages, callClient: calls.clientMessages)
    adminSeeds(&seeds, server: rooms.serverMessages)
    tokenSeeds(&seeds)
    textSeeds(&seeds)
    stunSeeds(&seeds)
    seeds.report()
    return 0
}

/// Writes seed files under `root/<Target>/`.
struct SeedWriter {
    let root: String
    private var written: [String: (files: Int, bytes: Int, largest: Int)] = [:]

    init(root: String) { self.root = root }

    mutating func write(_ target: String, _ files: [(String, [UInt8])]) {
        let directory = "\(root)/\(target)"
        try! FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        for (name, bytes) in files {
            precondition(bytes.count <= 64 * 1024, "\(target)/\(name) is \(bytes.count) bytes")
            try! Data(bytes).write(to: URL(fileURLWithPath: "\(directory)/\(name)"))
            var entry = written[target, default: (0, 0, 0)]
            entry = (entry.files + 1, entry.bytes + bytes.count, max(entry.largest, bytes.count))
            written[target] = entry
        }
    }

    func report() {
        for (target, entry) in written.sorted(by: { $0.key < $1.key }) {
            print("\(target): \(entry.files) files, \(entry.bytes) bytes, largest \(entry.largest)")
        }
    }
}

/// The first `limit` datagrams of each kind (side, route, payload or packet type).
func sample(_ sent: [Sent], perKind limit: Int, where include: (Sent) -> Bool = { _ in true }) -> [Sent] {
    var counts: [String: Int] = [:]
    return sent.filter { datagram in
        guard include(datagram) else { return false }
        let kind = "\(datagram.fromSender) \(datagram.route) \(datagram.isRTP ? datagram.payloadType : datagram.bytes[1])"
        counts[kind, default: 0] += 1
        return counts[kind]! <= limit
    }
}

/// Each packet of an RTCP compound, alone.
func packets(ofCompound bytes: [UInt8]) -> [[UInt8]] {
    bytes.withUnsafeBytes { raw in
        var reader = RTCPCompoundReader(raw)
        var out: [[UInt8]] = []
        while let slice = try? reader.next() { out.append(Array(slice.bytes)) }
        return out
    }
}

func packetSeeds(_ seeds: inout SeedWriter) {
    let calls = [("vp8", loopback(codec: .vp8)), ("vp9", loopback(codec: .vp9, seed: 12)), ("h264", loopback(codec: .h264, seed: 13))]
    func name(_ call: String, _ datagram: Sent, _ index: Int) -> String {
        let side = datagram.fromSender ? "sender" : "receiver"
        return datagram.isRTP ? "\(call)-\(side)-pt\(datagram.payloadType)-\(index)" : "\(call)-\(side)-rtcp\(datagram.bytes[1])-\(index)"
    }

    // RTP: media of each codec, Opus, retransmissions and padding probes.
    var rtp: [(String, [UInt8])] = []
    for (call, sent) in calls {
        for (index, datagram) in sample(sent, perKind: 2, where: \.isRTP).enumerated() { rtp.append((name(call, datagram, index), datagram.bytes)) }
    }
    seeds.write("FuzzRTP", rtp)

    // RTCP: every compound kind both sides send (SR, RR + SDES + XR, transport-cc, NACK, PLI, DLRR).
    var rtcp: [(String, [UInt8])] = []
    for (call, sent) in calls.prefix(2) {
        for (index, datagram) in sample(sent, perKind: 2, where: { !$0.isRTP }).enumerated() { rtcp.append((name(call, datagram, index), datagram.bytes)) }
    }
    // And the consent checks live meetings and calls send before media (as they read once unprotected).
    for kind in [RTCPConsentCheck.Kind.challenge, .answer] {
        let check = RTCPConsentCheck(kind, ssrc: 0x7000_0011, nonce: 0x0123_4567_89AB_CDEF_FEDC_BA98_7654_3210)
        rtcp.append(("consent-\(kind)", try! RTCPCompound.serialized(check.packets)))
    }
    seeds.write("FuzzRTCP", rtcp)

    // XR: the RRTR receivers send and the DLRR senders answer with, alone and in their
    // compounds, and an XR of several blocks (one of a type Confer keeps as bytes).
    var xr: [(String, [UInt8])] = []
    for (call, sent) in calls.prefix(2) {
        let withXR = sent.filter { !$0.isRTP && packets(ofCompound: $0.bytes).contains { $0.count > 1 && $0[1] == RTCPExtendedReport.packetType } }
        for (index, datagram) in sample(withXR, perKind: 2).enumerated() {
            let side = datagram.fromSender ? "dlrr" : "rrtr"
            xr.append(("\(call)-\(side)-compound-\(index)", datagram.bytes))
            for packet in packets(ofCompound: datagram.bytes) where packet[1] == RTCPExtendedReport.packetType {
                xr.append(("\(call)-\(side)-\(index)", packet))
            }
        }
    }
    let several = RTCPExtendedReport(ssrc: 0x3000_0001, blocks: [
        .receiverReferenceTime(NTPTime(seconds: 3_900_000_000, fraction: 0x8000_0000)),
        .delaySinceLastReceiverReport([.init(ssrc: 0x1000_0001, lastReceiverReport: CompactNTPTime(rawValue: 0x1234_5678),
                                             delay: CompactNTPTime(rawValue: 0x0001_8000)),
                                       .init(ssrc: 0x2000_0001, lastReceiverReport: CompactNTPTime(rawValue: 0), delay: CompactNTPTime(rawValue: 0))]),
        // RFC 3611 §4.6 statistics summary: a block type Confer does not read.
        .other(type: 6, typeSpecific: 0xE0, contents: Array(repeating: 0x11, count: 36)),
    ])
    xr.append(("several-blocks", try! RTCPCompound.serialized([.extendedReport(several)])))
    seeds.write("FuzzRTCPExtendedReport", xr)

    // SRTP: real packets protected with the target's own keys (selector: profile, then
    // operation 0 unprotect RTP, 1 unprotect RTCP, 2 protect RTP, 3 protect RTCP).
    let profiles = SRTPProfile.allCases
    var srtp: [(String, [UInt8])] = []
    let plain = sample(calls[0].1, perKind: 1)
    for (profileIndex, profile) in profiles.enumerated() {
        let key = fuzzSRTPKey(profile: profile)
        let outbound = try! SRTPSession(key: key, direction: .outbound)
        for (index, datagram) in plain.enumerated() where index % profiles.count == profileIndex || index < 2 {
            let rtcp = !datagram.isRTP
            let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: datagram.bytes.count + 64, alignment: 16)
            defer { buffer.deallocate() }
            buffer.copyBytes(from: datagram.bytes)
            let length = rtcp ? try! outbound.protectRTCP(buffer, length: datagram.bytes.count) : try! outbound.protectRTP(buffer, length: datagram.bytes.count)
            let operation = rtcp ? 1 : 0
            srtp.append(("\(profile.rawValue)-\(rtcp ? "srtcp" : "srtp")-\(index)", [UInt8(operation * profiles.count + profileIndex)] + Array(buffer.prefix(length))))
            srtp.append(("\(profile.rawValue)-plain-\(rtcp ? "rtcp" : "rtp")-\(index)", [UInt8((operation + 2) * profiles.count + profileIndex)] + datagram.bytes))
        }
    }
    seeds.write("FuzzSRTPUnprotect", Array(srtp.prefix(24)))

    // Depacketizers: mode 0 one real payload, mode 1 a run of real packets (length, flags,
    // payload), mode 2 a real frame to packetize.
    for (target, callIndex, payloadType) in [("FuzzVP8Depacketizer", 0, 96), ("FuzzVP9Depacketizer", 1, 96), ("FuzzH264Depacketizer", 2, 96),
                                              ("FuzzOpusDepacketizer", 0, 111)] {
        let media = calls[callIndex].1.filter { $0.fromSender && $0.isRTP && $0.payloadType == UInt8(payloadType) }
        var files: [(String, [UInt8])] = []
        for (index, datagram) in media.prefix(6).enumerated() { files.append(("payload-\(index)", [0] + payload(of: datagram.bytes))) }
        for run in 0 ..< 3 {
            var input: [UInt8] = [1]
            var previous: (UInt16, UInt32)?
            for datagram in media.dropFirst(run * 12).prefix(24) {
                datagram.bytes.withUnsafeBytes { raw in
                    let view = try! RTPPacketView(raw)
                    let body = Array(view.payload.prefix(255))
                    let sequenceStep = previous.map { Int(view.sequenceNumber &- $0.0) } ?? 1
                    let newFrame = previous.map { $0.1 != view.timestamp } ?? false
                    // Flags: marker, sequence step + 2 in bits 1–3, a new timestamp in bits 4–5.
                    let flags = UInt8(view.marker ? 1 : 0) | UInt8(min(max(sequenceStep + 2, 0), 7)) << 1 | (newFrame ? 0x10 : 0)
                    input += [UInt8(body.count), flags] + body
                    previous = (view.sequenceNumber, view.timestamp)
                }
            }
            files.append(("run-\(run)", input))
        }
        seeds.write(target, files)
    }
    var frameSeeds: [String: [(String, [UInt8])]] = [:]
    for (index, frame) in encodedFrames(.vp8, count: 4).enumerated() {
        frameSeeds["FuzzVP8Depacketizer", default: []].append(("frame-\(index)", [2, UInt8(40 + 60 * index)] + frame.data.prefix(8000)))
    }
    for (index, frame) in encodedFrames(.vp9, count: 4).enumerated() {
        frameSeeds["FuzzVP9Depacketizer", default: []].append(("frame-\(index)", [2, UInt8(40 + 60 * index) | (index == 0 ? 2 : 0)] + frame.data.prefix(8000)))
    }
    for (index, frame) in encodedFrames(.h264, count: 4).enumerated() {
        // Mode 2 takes NAL units as a length byte and the unit.
        var input: [UInt8] = [2, UInt8(60 + 50 * index)]
        for range in frame.nalUnits { let nal = frame.data[range].prefix(255); input += [UInt8(nal.count)] + nal }
        frameSeeds["FuzzH264Depacketizer", default: []].append(("frame-\(index)", input))
    }
    let opus = calls[0].1.filter { $0.fromSender && $0.isRTP && $0.payloadType == 111 }
    for (index, datagram) in opus.prefix(3).enumerated() {
        frameSeeds["FuzzOpusDepacketizer", default: []].append(("frame-\(index)", [2, UInt8(10 + 20 * index)] + payload(of: datagram.bytes)))
    }
    for (target, files) in frameSeeds { seeds.write(target, files) }
}

func codecSeeds(_ seeds: inout SeedWriter) {
    // Opus: real packets of a tone, and of the silence and speech-like spurts DTX and the
    // encoder's modes produce.
    var opus: [(String, [UInt8])] = []
    for (pattern, name) in [(ToneSource.Pattern.continuous, "tone"), (.speech, "speech")] {
        var tone = ToneSource(index: 2, amplitude: 0.4, channels: 1, pattern: pattern, seed: 4)
        var encoder = try! OpusEncoder(settings: AudioEncoderSettings())
        var frame = EncodedFrame(codec: .opus)
        for index in 0 ..< 40 {
            try! encoder.encode(tone.next(frameCount: 960), into: &frame)
            if index % 5 == 0 { opus.append(("\(name)-\(index)", frame.data)) }
        }
    }
    seeds.write("FuzzOpusDecoder", opus)

    // VPX: byte 0 picks codec (bit 0) and mode (bits 1–2). Mode 0 is real frames, each after a
    // 2-byte little-endian length; modes 1 and 2 XOR the input over the target's own frames,
    // so a few flipped bits in zeros damage them a little.
    var vpx: [(String, [UInt8])] = []
    for (codecBit, codec) in [(UInt8(0), Codec.vp8), (1, .vp9)] {
        let frames = encodedFrames(codec, count: 6)
        for start in [0, 2] {
            var input: [UInt8] = [codecBit]
            for frame in frames[start...] { input += [UInt8(frame.data.count & 0xFF), UInt8(frame.data.count >> 8)] + frame.data }
            vpx.append(("\(codec == .vp8 ? "vp8" : "vp9")-frames-from-\(start)", input))
        }
        for mode in [UInt8(1), 2] {
            var dice = Dice(UInt64(600 + Int(mode) + Int(codecBit) * 10))
            var input = [codecBit | mode << 1] + Array(repeating: UInt8(0), count: frames[Int(mode) - 1].data.count)
            for _ in 0 ..< 3 { input[1 + 8 + dice.below(input.count - 9)] ^= UInt8(1 << dice.below(8)) }
            vpx.append(("\(codec == .vp8 ? "vp8" : "vp9")-mode\(mode)-bitflips", input))
        }
    }
    seeds.write("FuzzVPXDecode", vpx)

    // H.264: real access units of another picture (decoded as the input's own access unit),
    // and zeros with a few flipped bits, which damage the target's reference stream lightly.
    let h264 = encodedFrames(.h264, count: 5)
    var decoder: [(String, [UInt8])] = h264.enumerated().map { ("access-unit-\($0.offset)", $0.element.data) }
    for variant in 0 ..< 3 {
        var dice = Dice(UInt64(700 + variant))
        var input = Array(repeating: UInt8(0), count: 600 + 300 * variant)
        for _ in 0 ..< 2 + variant { input[40 + dice.below(input.count - 40)] ^= UInt8(1 << dice.below(8)) }
        decoder.append(("bitflips-\(variant)", input))
    }
    seeds.write("FuzzH264Decoder", decoder)

    // SPS: every sequence parameter set x264 writes for a few picture sizes.
    var sps: [(String, [UInt8])] = []
    for (width, height) in [(64, 48), (176, 144), (320, 180), (1280, 720)] {
        var encoder = try! X264Encoder(settings: VideoEncoderSettings(width: width, height: height, bitrate: 300_000))
        var source = TestPatternSource(width: width, height: height, frameRate: 15, colorIndex: 1, seed: 2)
        if let frame = try! encoder.encode(source.next()) {
            for range in frame.nalUnits where frame.data[range.lowerBound] & 0x1F == 7 {
                sps.append(("sps-\(width)x\(height)", Array(frame.data[range])))
            }
        }
    }
    seeds.write("FuzzH264SPS", sps)
}

func signalSeeds(_ seeds: inout SeedWriter, server: [ServerMessage], callServer: [CallServerMessage], callClient: [CallClientMessage]) {
    var files: [(String, [UInt8])] = []
    let client: [ClientMessage] = [
        .join(token: "eyJhbGciOiJIUzI1NiJ9.e30.c2ln", room: "standup"), .ping(sent: 1_700_000_000_000), .leave, .cancelJoin,
        .approve(identity: "p1"), .kick(identity: "p2"), .transferHost(identity: "p3"), .setDevice(device: .camera, on: false),
        .requestDevice(identity: "p1", device: .microphone), .answerDeviceRequest(id: 7, accept: true),
        .applyForParticipant, .answerApplication(identity: "o1", approve: false), .send(to: ["p1", "p2"], kind: "chat", text: "hi ✓"),
        .join(token: "eyJhbGciOiJIUzI1NiJ9.e30.c2ln", room: "standup", devices: DeviceStates(microphone: false, camera: true)),
    ]
    for (index, message) in client.enumerated() { files.append(("client-\(index)", SignalCodec.encode(message))) }
    // One of each server message kind the rooms sent, then of each call message.
    var kinds: Set<String> = []
    for message in server {
        let bytes = SignalCodec.encode(message)
        let kind = String(decoding: bytes.prefix(24), as: UTF8.self)
        if kinds.insert(kind).inserted && kinds.count <= 8 { files.append(("server-\(kinds.count)", bytes)) }
    }
    // A renewed token (the rooms of these scripts end before any token is half spent).
    files.append(("server-token", SignalCodec.encode(ServerMessage.tokenRefreshed(token: "eyJhbGciOiJIUzI1NiJ9.e30.c2ln"))))
    kinds = []
    for message in callServer {
        let bytes = SignalCodec.encode(message)
        let kind = String(decoding: bytes.prefix(12), as: UTF8.self)
        if kinds.insert(kind).inserted && kinds.count <= 5 { files.append(("call-server-\(kinds.count)", bytes)) }
    }
    for (index, message) in callClient.prefix(40).enumerated() where index % 8 == 0 {
        files.append(("call-client-\(index)", SignalCodec.encode(message)))
    }
    // A log page with every filter, the other user's (`peer`) among them.
    let log = CallClientMessage.log(ref: 3, CallLogQuery(role: .callee, results: [.completed], peer: "bob", limit: 10))
    files.append(("call-client-log", SignalCodec.encode(log)))
    // Media descriptions as a device behind a NAT sends them: the mapping, and its LAN address beside it.
    let media = MediaDescription(host: "198.51.100.1", port: 61_000, alternates: [.init(host: "10.1.0.3", port: 50_000)],
                                 codec: "vp8", width: 640, height: 360, frameRate: 24)
    files.append(("client-media", SignalCodec.encode(ClientMessage.announceMedia(media))))
    files.append(("call-client-media", SignalCodec.encode(CallClientMessage.media(call: "c1", media))))
    seeds.write("FuzzSignalMessage", files)
}

func textSeeds(_ seeds: inout SeedWriter) {
    // Console scripts: every command each console takes, as its action writes it, and a
    // script as people type them (capitals, tabs, CRLF ends, comments, a mistake).
    let meeting: [MeetingAction] = [
        .say("hello there", to: nil), .say("psst", to: ["bob", "carol"]), .setDevice(.microphone, on: false),
        .setDevice(.camera, on: true), .answerDeviceRequest(nil, accept: true), .answerDeviceRequest(.camera, accept: false),
        .apply, .approve("carol"), .decline("dave"), .kick("eve"), .mute("bob", .microphone), .ask("bob", .camera),
        .transfer("alice"), .members, .help, .close, .leave,
    ]
    let call: [CallAction] = [.accept, .decline, .setDevice(.microphone, on: false), .setDevice(.camera, on: true),
                              .set(key: "topic", value: "quarterly review"), .unset("topic"), .help, .hangUp]
    seeds.write("FuzzConsoleCommand", [
        ("meeting", Array(meeting.map(\.line).joined(separator: "\n").utf8)),
        ("call", Array(call.map(\.line).joined(separator: "\n").utf8)),
        ("typed", Array("# a script\r\n  SAY  hi all \r\nTell\tbob,,carol  see you\r\nMIC Off\r\nkick\r\nset  a = b \r\nfrob\r\n".utf8)),
    ])

    // SDES: each profile's a=crypto line (with and without a lifetime), key parameter and CLI form.
    var sdes: [(String, [UInt8])] = []
    var random = SeededRandom(seed: 7)
    for profile in SRTPProfile.allCases {
        let key = SRTPMasterKey.random(profile: profile, using: &random)
        sdes.append(("\(profile.rawValue)-attribute", Array(SDESCryptoAttribute(tag: 1, key: key).attributeLine.utf8)))
        sdes.append(("\(profile.rawValue)-attribute-lifetime", Array(SDESCryptoAttribute(tag: 2, key: key, lifetime: 1 << 31).attributeLine.utf8)))
        sdes.append(("\(profile.rawValue)-inline", Array(key.inlineKeyParameter(lifetime: 1_000_000).utf8)))
        sdes.append(("\(profile.rawValue)-cli", Array(key.commandLineForm.utf8)))
    }
    seeds.write("FuzzSDES", sdes)

    // SDP: what Confer writes for each codec, with SRTP and without.
    var sdp: [(String, [UInt8])] = []
    var keys = SeededRandom(seed: 8)
    for (codec, pt, channels, name) in [(Codec.opus, UInt8(111), 2, "opus"), (.vp8, 96, 1, "vp8"), (.vp9, 98, 1, "vp9"), (.h264, 102, 1, "h264")] {
        var description = SessionDescription(codec: codec, payloadType: pt, address: "127.0.0.1", port: 5004, channels: channels)
        sdp.append((name, Array(description.text.utf8)))
        description.ssrc = 0x1000_0001
        description.rtcpMux = true
        description.crypto = SDESCryptoAttribute(key: SRTPMasterKey.random(profile: SRTPProfile.allCases[0], using: &keys)).attributeLine
        sdp.append(("\(name)-srtp", Array(description.text.utf8)))
    }
    seeds.write("FuzzSDP", sdp)

    // Layouts: every built-in layout as JSON, as `confer host --layout-file` reads them.
    let people = (1 ... 6).map { ParticipantID(UInt32($0)) }
    var layouts: [(String, VideoLayout)] = [
        ("grid-1", .grid(count: 1)), ("grid-4", .grid(Array(people.prefix(4)))), ("grid-6-fill", .grid(people, mode: .fill)),
        ("grid-100", .grid(count: 100)), ("speaker", .activeSpeaker(people[0], others: Array(people.dropFirst()))),
        ("speaker-2-thumbnails", .activeSpeaker(people[1], others: Array(people.prefix(1)), thumbnails: 2)),
        ("presenter", .presenter(people[0], cameras: Array(people.dropFirst()))),
    ]
    for corner in VideoLayout.Corner.allCases {
        layouts.append(("pip-\(corner.rawValue)", .pictureInPicture(main: people[0], inset: people[1], corner: corner)))
    }
    seeds.write("FuzzLayoutJSON", layouts.map { ($0.0, Array($0.1.json.utf8)) })

    // Network traces: what a NetworkLink measured on paths of Confer's models (a delay per
    // delivered packet, `loss` for each lost), and the file format's own example.
    var traces: [(String, [UInt8])] = [("format-example", Array("# comments start with '#'; blank lines are ignored\n20\n20.125\nloss\n\n35\nLOSS\n".utf8))]
    let paths: [(String, NetworkConditions)] = [
        ("wifi", NetworkConditions(delay: .milliseconds(8), jitter: .normal(.milliseconds(4)), loss: 0.01)),
        ("lte", NetworkConditions(delay: .milliseconds(45), jitter: .pareto(.milliseconds(15)), preservesOrder: false, loss: 0.02)),
        ("bursty", NetworkConditions(delay: .milliseconds(30), jitter: .uniform(.milliseconds(10)),
                                     burstLoss: GilbertElliott(meanBurstLength: 4, lossRate: 0.08))),
        ("satellite", NetworkConditions(delay: .milliseconds(600), jitter: .normal(.milliseconds(30)), loss: 0.005)),
        ("congested", NetworkConditions(delay: .milliseconds(20), bandwidth: 400_000)),
    ]
    for (index, (name, conditions)) in paths.enumerated() {
        var link = NetworkLink<Int>(conditions: conditions, seed: UInt64(index + 1))
        var lines = ["# \(name): one entry per packet, 1200-byte packets every 10 ms"]
        for packet in 0 ..< 300 {
            let sent = Timestamp.milliseconds(Int64(packet) * 10)
            let result = link.send(packet, byteCount: 1200, at: sent)
            if let delivery = result.deliveryTime {
                let microseconds = (delivery - sent).microseconds
                let fraction = String(microseconds % 1000)
                lines.append("\(microseconds / 1000).\(String(repeating: "0", count: 3 - fraction.count))\(fraction)")
            } else {
                lines.append("loss")
            }
        }
        traces.append((name, Array((lines.joined(separator: "\n") + "\n").utf8)))
    }
    seeds.write("FuzzNetworkTrace", traces)
}
