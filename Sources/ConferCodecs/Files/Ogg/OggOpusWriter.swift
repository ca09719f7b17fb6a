internal import COpus
public import ConferMedia

/// Encodes 48 kHz mono or stereo ``AudioFrame``s into an Ogg Opus file (RFC 7845): Confer's
/// own ``OpusEncoder`` (libopus, the fullband "audio" application, 20 ms packets) makes the
/// packets and libogg pages them — the same encoder the RTP path uses, so one Opus error
/// type and no second encoder library on the way to a file.
///
/// Pages go to a ``ByteSink`` (a file or memory). The head packet says the encoder's
/// look-ahead as pre-skip; the last page's granule position trims the padding of the final
/// packet, so the file decodes to exactly the samples written.
public final class OggOpusWriter {
    /// 1 or 2.
    public let channels: Int
    /// Sample frames (per channel) handed to the encoder so far.
    public private(set) var framesWritten = 0
    private var encoder: OpusEncoder
    private let pager: OggPager
    private let samplesPerPacket: Int
    private let preSkip: Int
    /// Samples waiting for a whole packet, interleaved.
    private var pending: [Int16] = []
    private var packet = EncodedFrame(codec: .opus)
    /// Samples (per channel) the packets written so far decode to (RFC 7845 §4: the
    /// granule position counts from the stream's first sample, the pre-skip among them).
    private var granule: Int64 = 0
    private var packetNumber: Int64 = 2
    private var finished = false

    /// Creates `path`; `bitrate` in bits/s and `complexity` 0–10, or libopus's choices when nil.
    public convenience init(path: String, channels: Int, bitrate: Int? = nil, complexity: Int? = nil) throws(MediaFileError) {
        try self.init(sink: FileByteSink(path: path), channels: channels, bitrate: bitrate, complexity: complexity)
    }

    /// Writes the stream to `sink`; `bitrate` in bits/s and `complexity` 0–10, or libopus's choices when nil.
    public init(sink: any ByteSink, channels: Int, bitrate: Int? = nil, complexity: Int? = nil) throws(MediaFileError) {
        guard channels == 1 || channels == 2 else {
            throw MediaFileError(.unsupported, format: OpusLibraryErrors.format, "\(channels) channels; Confer writes mono or stereo")
        }
        self.channels = channels
        // OPUS_AUTO (-1000) lets libopus pick the bitrate for the channels.
        let settings = AudioEncoderSettings(channels: channels, bitrate: bitrate ?? Int(OPUS_AUTO), frameDurationMs: 20,
                                            complexity: complexity ?? 10)
        do { encoder = try OpusEncoder(settings: settings, application: .audio) } catch {
            throw MediaFileError(.unsupported, format: OpusLibraryErrors.format, "\(error)")
        }
        samplesPerPacket = settings.samplesPerFrame
        preSkip = encoder.lookahead
        pager = try OggPager(sink: sink)
        try pager.write(packet: Self.head(channels: channels, preSkip: preSkip), number: 0, granule: 0, first: true, last: false, flush: true)
        try pager.write(packet: Self.tags, number: 1, granule: 0, first: false, last: false, flush: true)
        pending.reserveCapacity(samplesPerPacket * channels * 2)
    }

    deinit { try? finish() }

    /// Encodes `frame`, which must have the writer's channel count.
    public func write(_ frame: AudioFrame) throws(MediaFileError) {
        guard !finished else { throw MediaFileError(.io, format: OpusLibraryErrors.format, "writer is already finished") }
        guard frame.channels == channels else {
            throw MediaFileError(.malformed, format: OpusLibraryErrors.format, "frame has \(frame.channels) channels but the stream has \(channels)")
        }
        guard frame.frameCount > 0 else { return }
        pending.append(contentsOf: frame.samples)
        framesWritten += frame.frameCount
        let whole = samplesPerPacket * channels
        while pending.count >= whole {
            try encodePacket(Array(pending[0 ..< whole]), last: false)
            pending.removeFirst(whole)
        }
    }

    /// Encodes what is buffered (padded with silence to a whole packet, and with enough
    /// silence to flush the look-ahead), ends the stream and flushes; no more frames afterwards.
    public func finish() throws(MediaFileError) {
        guard !finished else { return }
        finished = true
        let whole = samplesPerPacket * channels
        // The decoder lags by the pre-skip: pad so the last real sample leaves the encoder.
        var tail = pending
        tail.append(contentsOf: repeatElement(0, count: preSkip * channels))
        tail.append(contentsOf: repeatElement(0, count: (whole - tail.count % whole) % whole))
        if tail.isEmpty { tail = [Int16](repeating: 0, count: whole) }
        pending.removeAll()
        let end = Int64(preSkip) + Int64(framesWritten)
        var offset = 0
        while offset < tail.count {
            let last = offset + whole >= tail.count
            // No page of the tail may claim more than the stream holds (positions never go back).
            try encodePacket(Array(tail[offset ..< offset + whole]), last: last, endGranule: end)
            offset += whole
        }
        try pager.sink.flush()
    }

    private func encodePacket(_ samples: [Int16], last: Bool, endGranule: Int64? = nil) throws(MediaFileError) {
        do { try encoder.encode(AudioFrame(samples: samples, channels: channels), into: &packet) } catch {
            throw MediaFileError(.malformed, format: OpusLibraryErrors.format, "encoding: \(error)")
        }
        granule += Int64(samplesPerPacket)
        // RFC 7845 §4: the last page's granule position says where the stream ends, which
        // trims the padding of the final packet.
        let position = endGranule.map { min($0, granule) } ?? granule
        try pager.write(packet: packet.data, number: packetNumber, granule: position, first: false, last: last, flush: last)
        packetNumber += 1
    }

    /// RFC 7845 §5.1: the identification header.
    private static func head(channels: Int, preSkip: Int) -> [UInt8] {
        var bytes = Array("OpusHead".utf8)
        bytes.append(1)                                  // version
        bytes.append(UInt8(channels))
        bytes += [UInt8(preSkip & 0xFF), UInt8(preSkip >> 8)]
        let rate = UInt32(conferSampleRate)
        bytes += [UInt8(rate & 0xFF), UInt8(rate >> 8 & 0xFF), UInt8(rate >> 16 & 0xFF), UInt8(rate >> 24)]
        bytes += [0, 0]                                  // output gain
        bytes.append(0)                                  // mapping family 0: mono or stereo
        return bytes
    }

    /// RFC 7845 §5.2: the comment header, with the vendor and no comments.
    private static let tags: [UInt8] = {
        let vendor = Array("Confer (libopus)".utf8)
        var bytes = Array("OpusTags".utf8)
        let length = UInt32(vendor.count)
        bytes += [UInt8(length & 0xFF), UInt8(length >> 8 & 0xFF), UInt8(length >> 16 & 0xFF), UInt8(length >> 24)]
        bytes += vendor
        bytes += [0, 0, 0, 0]
        return bytes
    }()
}

/// One logical Ogg stream written with libogg: packets in, pages out to a sink. Owns its
/// `ogg_stream_state`.
final class OggPager {
    let sink: any ByteSink
    private let state: UnsafeMutablePointer<ogg_stream_state>

    init(sink: any ByteSink, serial: Int32 = 0x436F_6E66) throws(MediaFileError) {
        self.sink = sink
        state = .allocate(capacity: 1)
        guard ogg_stream_init(state, serial) == 0 else {
            state.deallocate()
            throw MediaFileError(.io, format: OpusLibraryErrors.format, "libogg could not start a stream")
        }
    }

    deinit {
        ogg_stream_clear(state)
        state.deallocate()
    }

    /// Adds a packet; `flush` ends the page after it (headers, the last packet), otherwise
    /// libogg closes pages as they fill.
    func write(packet bytes: [UInt8], number: Int64, granule: Int64, first: Bool, last: Bool, flush: Bool) throws(MediaFileError) {
        var packet = ogg_packet()
        let result = bytes.withUnsafeBufferPointer { buffer -> Int32 in
            packet.packet = UnsafeMutablePointer(mutating: buffer.baseAddress)
            packet.bytes = Int(buffer.count)
            packet.b_o_s = first ? 1 : 0
            packet.e_o_s = last ? 1 : 0
            packet.granulepos = ogg_int64_t(granule)
            packet.packetno = ogg_int64_t(number)
            return ogg_stream_packetin(state, &packet)  // libogg copies the bytes
        }
        guard result == 0 else { throw MediaFileError(.io, format: OpusLibraryErrors.format, "libogg refused packet \(number)") }
        var page = ogg_page()
        while (flush ? ogg_stream_flush(state, &page) : ogg_stream_pageout(state, &page)) != 0 {
            try sink.write(UnsafeRawBufferPointer(start: page.header, count: Int(page.header_len)))
            try sink.write(UnsafeRawBufferPointer(start: page.body, count: Int(page.body_len)))
        }
    }
}
