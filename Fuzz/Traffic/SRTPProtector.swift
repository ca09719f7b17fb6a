public import ConferSRTP
import ConferRTP
import Confer

/// Protects datagrams the way a peer holding `key` would, so fuzzed plaintext reaches the
/// parsers behind SRTP's authentication. What cannot be protected (not RTP or RTCP enough
/// for libsrtp) goes out as it is, which exercises the rejection path instead.
public final class SRTPProtector {
    private let session: SRTPSession
    /// Fuzz inputs are at most a few kilobytes; larger datagrams pass unprotected.
    private var buffer = [UInt8](repeating: 0, count: 8192 + 64)

    /// A protector sending with `key`.
    public init(key: SRTPMasterKey) {
        session = try! SRTPSession(key: key, direction: .outbound)
    }

    /// `datagram` protected as SRTCP when its second byte is an RTCP packet type, else as SRTP.
    public func protect(_ datagram: [UInt8]) -> [UInt8] {
        guard datagram.count >= 8, datagram.count <= buffer.count - 64 else { return datagram }
        let isControl = (192 ... 223).contains(datagram[1])
        let length: Int? = buffer.withUnsafeMutableBytes { buffer in
            datagram.withUnsafeBytes { UnsafeMutableRawBufferPointer(rebasing: buffer[0 ..< $0.count]).copyMemory(from: $0) }
            return isControl ? try? session.protectRTCP(buffer, length: datagram.count)
                             : try? session.protectRTP(buffer, length: datagram.count)
        }
        guard let length else { return datagram }
        return Array(buffer[0 ..< length])
    }
}

/// Checks what a pipeline sends: everything must authenticate with the key of its
/// direction and parse as RTP or as a whole RTCP compound, within `maximumSize` bytes.
///
/// In a star meeting one transport carries two directions' keys (``RTPDatagramRoute``):
/// RTP and sender reports are media of the sender (`mediaKey`), other RTCP is feedback
/// about the peer's media (`feedbackKey`).
public final class SentDatagramChecker {
    private let mediaRTP: SRTPSession?
    private let mediaRTCP: SRTPSession?
    private let feedbackRTCP: SRTPSession?
    private let maximumSize: Int
    private var buffer: [UInt8]
    /// RTP packets sent.
    public private(set) var rtpPackets = 0
    /// RTCP compounds that open with a sender report.
    public private(set) var senderReports = 0
    /// Other RTCP compounds (feedback).
    public private(set) var feedbackPackets = 0
    /// Set when the receiver is gone: nothing more may be sent to it.
    public var isClosed = false

    /// A checker for datagrams protected with these keys (nil: plain), at most `maximumSize` bytes.
    public init(mediaKey: SRTPMasterKey?, feedbackKey: SRTPMasterKey?, maximumSize: Int) {
        mediaRTP = mediaKey.map { try! SRTPSession(key: $0, direction: .inbound) }
        mediaRTCP = mediaKey.map { try! SRTPSession(key: $0, direction: .inbound) }
        feedbackRTCP = feedbackKey.map { try! SRTPSession(key: $0, direction: .inbound) }
        self.maximumSize = maximumSize
        buffer = [UInt8](repeating: 0, count: maximumSize)
    }

    /// Checks one datagram; a violation stops the fuzzer with the reason.
    public func check(_ datagram: UnsafeRawBufferPointer) {
        require(!isClosed, "sent a datagram to a participant that was removed")
        require(datagram.count <= maximumSize, "sent \(datagram.count) bytes, more than \(maximumSize)")
        require(datagram.count >= 8, "sent a datagram of \(datagram.count) bytes")
        let route = RTPDatagramRoute(classifying: datagram)
        let session = switch route {
        case .media: mediaRTP
        case .senderReport: mediaRTCP
        case .feedback: feedbackRTCP
        }
        buffer.withUnsafeMutableBytes { buffer in
            UnsafeMutableRawBufferPointer(rebasing: buffer[0 ..< datagram.count]).copyMemory(from: datagram)
            var length = datagram.count
            if let session {
                do {
                    length = route == .media ? try session.unprotectRTP(buffer, length: length)
                                             : try session.unprotectRTCP(buffer, length: length)
                } catch {
                    fail("sent a datagram (\(route)) its receiver cannot unprotect: \(error)")
                }
            }
            let plain = UnsafeRawBufferPointer(rebasing: buffer[0 ..< length])
            switch route {
            case .media:
                rtpPackets += 1
                require((try? RTPPacketView(plain)) != nil, "sent RTP that does not parse")
            case .senderReport, .feedback:
                if route == .senderReport { senderReports += 1 } else { feedbackPackets += 1 }
                var reader = RTCPCompoundReader(plain)
                do {
                    while let slice = try reader.next() { _ = try RTCPPacket(parsing: slice) }
                } catch {
                    fail("sent an RTCP compound that does not parse: \(error)")
                }
            }
        }
    }
}
