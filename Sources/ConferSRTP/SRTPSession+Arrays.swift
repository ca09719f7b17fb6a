extension SRTPSession {
    /// Protects the RTP packet in `packet` in place, growing it by the tag.
    ///
    /// Allocates nothing when `packet` is uniquely referenced and its capacity already
    /// holds `count + profile.rtpOverhead` bytes (reserve that once and reuse the array).
    /// On failure `packet` keeps its count, but its bytes are unspecified.
    public func protectRTP(_ packet: inout [UInt8]) throws(SRTPError) {
        try grow(&packet, by: profile.rtpOverhead) { (buffer, length) throws(SRTPError) in
            try protectRTP(buffer, length: length)
        }
    }

    /// Unprotects the SRTP packet in `packet` in place, shrinking it to the RTP packet.
    /// On failure `packet` is unchanged in count, and its bytes are unspecified.
    public func unprotectRTP(_ packet: inout [UInt8]) throws(SRTPError) {
        try grow(&packet, by: 0) { (buffer, length) throws(SRTPError) in
            try unprotectRTP(buffer, length: length)
        }
    }

    /// Protects the RTCP packet in `packet` in place, growing it by the SRTCP index and tag.
    public func protectRTCP(_ packet: inout [UInt8]) throws(SRTPError) {
        try grow(&packet, by: profile.rtcpOverhead) { (buffer, length) throws(SRTPError) in
            try protectRTCP(buffer, length: length)
        }
    }

    /// Unprotects the SRTCP packet in `packet` in place, shrinking it to the RTCP packet.
    public func unprotectRTCP(_ packet: inout [UInt8]) throws(SRTPError) {
        try grow(&packet, by: 0) { (buffer, length) throws(SRTPError) in
            try unprotectRTCP(buffer, length: length)
        }
    }

    /// Appends `extra` bytes of room, runs `body` over the whole storage with the original
    /// length, then trims the array to the length `body` returns (or back, on failure).
    private func grow(
        _ packet: inout [UInt8],
        by extra: Int,
        _ body: (UnsafeMutableRawBufferPointer, Int) throws(SRTPError) -> Int
    ) throws(SRTPError) {
        let length = packet.count
        if extra > 0 {
            packet.reserveCapacity(length + extra)
            packet.append(contentsOf: repeatElement(0, count: extra))
        }
        let result = packet.withUnsafeMutableBytes { buffer in
            Result { () throws(SRTPError) in try body(buffer, length) }
        }
        switch result {
        case .success(let newLength):
            packet.removeLast(packet.count - newLength)
        case .failure(let error):
            packet.removeLast(extra)
            throw error
        }
    }
}
