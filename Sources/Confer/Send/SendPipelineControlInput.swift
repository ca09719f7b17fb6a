import ConferRTP
import ConferSRTP

/// Where a sending side reads the receiver's RTCP: SRTCP verified and decrypted with the
/// key the receiver protects its feedback with, then the compound split into packets.
///
/// Shared by ``SendPipeline`` (one path) and ``HostPipeline`` (one per participant), so both
/// count and drop what does not authenticate or parse the same way.
final class SendPipelineControlInput {
    /// Verifies SRTCP from the receiver.
    private let session: SRTPSession?
    /// Where SRTCP is unprotected (libsrtp works in place); a UDP datagram holds at most 65,507 bytes.
    private let buffer: UnsafeMutableRawBufferPointer
    /// RTCP compounds received.
    private(set) var packetsReceived = 0
    /// Compounds that did not authenticate or parse (the packets before a malformed one still count).
    private(set) var packetsMalformed = 0

    /// An input verifying with `srtpKey`, or reading plain RTCP without one.
    init(srtpKey: SRTPMasterKey?) throws {
        session = try srtpKey.map { try SRTPSession(key: $0, direction: .inbound) }
        buffer = .allocate(byteCount: 65_536, alignment: 16)
    }

    deinit { buffer.deallocate() }

    /// Hands each packet of the compound in `datagram` to `handle`, in order. A compound that
    /// does not authenticate is dropped whole; parsing stops at the first malformed packet.
    /// Returns whether the compound authenticated (without SRTCP: whether it could be read),
    /// so a caller can tell its peer's consent from what merely arrived.
    @discardableResult
    func read(_ datagram: UnsafeRawBufferPointer, _ handle: (RTCPPacket) -> Void) -> Bool {
        packetsReceived += 1
        guard datagram.count <= buffer.count else {
            packetsMalformed += 1
            return false
        }
        var bytes = datagram
        if let session {
            UnsafeMutableRawBufferPointer(rebasing: buffer[0 ..< datagram.count]).copyMemory(from: datagram)
            guard let length = try? session.unprotectRTCP(buffer, length: datagram.count) else {
                packetsMalformed += 1
                return false
            }
            bytes = UnsafeRawBufferPointer(rebasing: buffer[0 ..< length])
        }
        var reader = RTCPCompoundReader(bytes)
        while true {
            let packet: RTCPPacket
            do throws(RTCPError) {
                guard let slice = try reader.next() else { return true }
                packet = try RTCPPacket(parsing: slice)
            } catch {
                packetsMalformed += 1
                return true
            }
            handle(packet)
        }
    }
}
