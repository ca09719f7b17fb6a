import ConferMedia
public import ConferNet
import ConferRTP

/// Where a live host sends a plain-RTP copy of the meeting for an audience outside it: the
/// composite, and the whole mix. Meant for an SFU that ingests plain RTP and fans it out,
/// such as Janus's streaming plugin (a mountpoint of type `rtp`: one port for video, one
/// for audio), or for `ffmpeg -i stream.sdp`.
///
/// The operator running the host names these addresses, not a member, so they need no
/// consent check; and the copy carries no encryption, so they belong on a network the
/// operator trusts (loopback, or the SFU's private address).
public struct LiveForwardTarget: Sendable, Hashable {
    /// Where the composite's RTP goes.
    public var video: UDPAddress
    /// Where the mix's RTP goes (none: video only).
    public var audio: UDPAddress?
    /// The composite's payload type (Janus's mountpoint must name the same).
    public var videoPayloadType: UInt8 = 96
    /// The mix's payload type.
    public var audioPayloadType: UInt8 = 111

    /// A forward of the composite to `video` and of the mix to `audio`.
    public init(video: UDPAddress, audio: UDPAddress? = nil) {
        self.video = video
        self.audio = audio
    }
}

/// Packetizes what the host encodes once, the composite and the whole mix, into plain RTP
/// for a ``LiveForwardTarget``: one more packetization of frames already encoded, no
/// encode of its own. The packets wait in queues until the host's loop sends them.
///
/// Not `Sendable`: the host's loop owns it.
final class LiveForward {
    /// The composite's SSRC in the copy (not the one members receive: another stream).
    static let videoSSRC: UInt32 = 0x5F00_0001
    /// The mix's SSRC in the copy.
    static let audioSSRC: UInt32 = 0x5F00_0002
    /// Payload bytes a packet carries at most: what a 1,200-byte datagram leaves.
    static let maximumPayloadSize = 1200 - 12

    let video: UDPDestination
    let audio: UDPDestination?
    private var videoPacketizer: RTPPacketizer
    private var audioPacketizer: RTPPacketizer
    private let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1500, alignment: 16)
    /// Composite packets not yet sent.
    let videoPackets = DatagramQueue()
    /// Mix packets not yet sent.
    let audioPackets = DatagramQueue(reservingBytes: 4 * 1500, datagrams: 4)
    /// Packets sent, both streams.
    private(set) var packetsSent = 0
    /// Bytes sent, both streams.
    private(set) var bytesSent = 0

    /// A forward of `codec` video (and Opus) to `target`.
    init(_ target: LiveForwardTarget, codec: Codec, seed: UInt64) throws {
        video = try UDPSocket.resolve(target.video)
        audio = try target.audio.map { try UDPSocket.resolve($0) }
        var random = SeededRandom(seed: seed)
        videoPacketizer = try RTPPacketizer(codec: codec, ssrc: Self.videoSSRC, payloadType: target.videoPayloadType,
                                            firstSequenceNumber: .random(in: 0 ... .max, using: &random),
                                            timestampOffset: .random(in: 0 ... .max, using: &random))
        audioPacketizer = try RTPPacketizer(codec: .opus, ssrc: Self.audioSSRC, payloadType: target.audioPayloadType,
                                            firstSequenceNumber: .random(in: 0 ... .max, using: &random),
                                            timestampOffset: .random(in: 0 ... .max, using: &random))
    }

    deinit { buffer.deallocate() }

    /// A composite frame as the host encoded it.
    func take(video frame: EncodedFrame) {
        packetize(frame, with: &videoPacketizer, into: videoPackets)
    }

    /// A frame of the whole mix as the host encoded it (dropped without an audio address).
    func take(audio frame: EncodedFrame) {
        guard audio != nil else { return }
        packetize(frame, with: &audioPacketizer, into: audioPackets)
    }

    /// Sends what is queued on `socket`, and empties the queues.
    func flush(on socket: UDPSocket) async {
        for (queue, destination) in [(videoPackets, video), (audioPackets, audio)] {
            guard let destination, !queue.isEmpty else { continue }
            if (try? await socket.send(queue.count, to: destination, { queue[$0] })) != nil {
                packetsSent += queue.count
                bytesSent += (0 ..< queue.count).reduce(0) { $0 + queue[$1].count }
            }
            queue.removeAll()
        }
    }

    private func packetize(_ frame: EncodedFrame, with packetizer: inout RTPPacketizer, into queue: DatagramQueue) {
        let rtpTimestamp = packetizer.rtpTimestamp(at: frame.timestamp)
        let buffer = buffer
        _ = try? packetizer.packetize(frame, rtpTimestamp: rtpTimestamp, captureTime: frame.timestamp,
                                      maxPayloadSize: Self.maximumPayloadSize, into: buffer) { (length: Int) throws(Never) in
            queue.append(UnsafeRawBufferPointer(rebasing: buffer[0 ..< length]))
        }
    }
}
