import ConferMedia
package import ConferRTP
package import ConferSRTP

/// The consent checks (``RTCPConsentCheck``) between this side and one peer, in SRTCP:
/// sealed with this side's sending key, opened with the peer's.
///
/// Its SRTP contexts are its own, beside the pipelines' on the same keys. That is safe
/// because its SSRCs are kept for consent alone (``LiveMeetingPlan/isConsentCheck(_:)`` routes them), so
/// no keystream is shared, and each context keeps its own replay window: an answer replayed
/// from a recording is refused.
package final class ConsentChannel {
    /// This side's SSRC on its checks.
    package let ssrc: UInt32
    /// Checks that did not open: not authentic, replayed, or no check inside.
    package private(set) var checksRefused = 0
    private let outbound: SRTPSession
    private let inbound: SRTPSession
    private var buffer = [UInt8](repeating: 0, count: 256)

    /// A channel sending as `ssrc` under `sendKey`, reading the peer's under `receiveKey`.
    package init(ssrc: UInt32, sendKey: SRTPMasterKey, receiveKey: SRTPMasterKey) throws(SRTPError) {
        self.ssrc = ssrc
        outbound = try SRTPSession(key: sendKey, direction: .outbound)
        inbound = try SRTPSession(key: receiveKey, direction: .inbound)
    }

    /// `kind` with `nonce` from this side, protected: the datagram to send, or nil should
    /// SRTP refuse (it does not, short of a broken library).
    package func seal(_ kind: RTCPConsentCheck.Kind, nonce: UInt128) -> [UInt8]? {
        let packets = RTCPConsentCheck(kind, ssrc: ssrc, nonce: nonce).packets
        return buffer.withUnsafeMutableBytes { buffer -> [UInt8]? in
            guard let length = try? RTCPCompound.serialize(packets, into: buffer),
                  let protected = try? outbound.protectRTCP(buffer, length: length) else { return nil }
            return Array(buffer[0 ..< protected])
        }
    }

    /// The check in `datagram` when it authenticates under the peer's key and holds one;
    /// otherwise nil, counted.
    package func open(_ datagram: UnsafeRawBufferPointer) -> RTCPConsentCheck? {
        guard datagram.count <= buffer.count else {
            checksRefused += 1
            return nil
        }
        let check = buffer.withUnsafeMutableBytes { buffer -> RTCPConsentCheck? in
            UnsafeMutableRawBufferPointer(rebasing: buffer[0 ..< datagram.count]).copyMemory(from: datagram)
            guard let length = try? inbound.unprotectRTCP(buffer, length: datagram.count),
                  let packets = try? RTCPCompound.parse(UnsafeRawBufferPointer(rebasing: buffer[0 ..< length])) else { return nil }
            return RTCPConsentCheck(packets)
        }
        if check == nil { checksRefused += 1 }
        return check
    }
}
