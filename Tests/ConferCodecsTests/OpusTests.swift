import ConferCodecs
import ConferMedia
import Testing

/// Encodes `samples` frame by frame and decodes every packet, returning the packets and the
/// decoded samples (interleaved, same length as the input).
private func roundTrip(_ samples: [Int16], settings: AudioEncoderSettings,
                       application: OpusApplication = .voip) throws -> (packets: [EncodedFrame], decoded: [Int16], lookahead: Int) {
    var encoder = try OpusEncoder(settings: settings, application: application)
    var decoder = try OpusDecoder(channels: settings.channels)
    let step = settings.samplesPerFrame * settings.channels
    var packets: [EncodedFrame] = []
    var decoded: [Int16] = []
    var output = EncodedFrame(codec: .opus)
    for (index, start) in stride(from: 0, to: samples.count - step + 1, by: step).enumerated() {
        let frame = AudioFrame(samples: Array(samples[start..<start + step]), channels: settings.channels,
                               timestamp: .milliseconds(Int64(index * settings.frameDurationMs)))
        try encoder.encode(frame, into: &output)
        #expect(output.timestamp == frame.timestamp && output.duration == .milliseconds(Int64(settings.frameDurationMs)))
        #expect(output.isKeyframe && output.codec == .opus)
        packets.append(output)
        let audio = try decoder.decode(output)
        #expect(audio.frameCount == settings.samplesPerFrame && audio.timestamp == frame.timestamp)
        decoded += audio.samples
    }
    return (packets, decoded, encoder.lookahead)
}

private func ms(_ milliseconds: Int) -> Int { conferSampleRate * milliseconds / 1000 }

struct OpusRoundTripCase: Sendable, CustomTestStringConvertible {
    let channels: Int
    let bitrate: Int
    let frameDurationMs: Int
    var testDescription: String { "\(channels) ch, \(bitrate / 1000) kb/s, \(frameDurationMs) ms" }
}

@Suite("Opus")
struct OpusTests {
    static let roundTripCases = [(2, 64_000), (1, 32_000)].flatMap { channels, bitrate in
        [10, 20, 40, 60].map { OpusRoundTripCase(channels: channels, bitrate: bitrate, frameDurationMs: $0) }
    }

    @Test("A 440 Hz + 1 kHz mix survives a round trip: energy within 20 %, correlation ≥ 0.9",
          arguments: roundTripCases)
    func roundTripTones(_ config: OpusRoundTripCase) throws {
        let frameCount = ms(1200)
        let input = SyntheticAudio.toneMix(frameCount: frameCount, channels: config.channels)
        let settings = AudioEncoderSettings(channels: config.channels, bitrate: config.bitrate,
                                            frameDurationMs: config.frameDurationMs)
        let (_, decoded, lookahead) = try roundTrip(input, settings: settings)
        #expect(decoded.count == input.count)
        let window = ms(200)..<frameCount
        // Compensate the codec delay: the lag (up to 20 ms) where output best matches input.
        let lag = SyntheticAudio.bestLag(input, decoded, channels: config.channels, maxLag: ms(20),
                                         probe: ms(300)..<ms(350), range: window)
        // The true delay is the look-ahead; the tones' near-period (432 samples) may score as well.
        #expect(abs(lag - lookahead) <= 2 || abs(lag - lookahead - 432) <= 6,
                "measured delay \(lag) samples, encoder look-ahead \(lookahead)")
        for channel in 0..<config.channels {
            let correlation = SyntheticAudio.correlation(input, decoded, channels: config.channels, channel: channel,
                                                         lag: lag, range: window)
            #expect(correlation >= 0.9, "channel \(channel) correlation \(correlation)")
            let inputEnergy = SyntheticAudio.energy(input, channels: config.channels, channel: channel,
                                                    range: (window.lowerBound - lag)..<(window.upperBound - lag))
            let outputEnergy = SyntheticAudio.energy(decoded, channels: config.channels, channel: channel, range: window)
            let ratio = outputEnergy / inputEnergy
            #expect(abs(ratio - 1) <= 0.2, "channel \(channel) energy ratio \(ratio)")
        }
    }

    @Test("Frame durations other than 10, 20, 40 and 60 ms, and bad channel counts, are refused",
          arguments: [0, 5, 15, 30, 80, 120])
    func invalidFrameDurations(_ durationMs: Int) {
        do {
            _ = try OpusEncoder(settings: AudioEncoderSettings(frameDurationMs: durationMs))
            Issue.record("\(durationMs) ms was accepted")
        } catch {
            #expect(error.code == .badArgument)
            #expect(!error.message.isEmpty)
        }
    }

    @Test("Bad channel counts, settings and frame sizes are refused")
    func invalidSettingsAndFrames() throws {
        for settings in [AudioEncoderSettings(channels: 3), AudioEncoderSettings(complexity: 11),
                         AudioEncoderSettings(bitrate: -5)] {
            do {
                _ = try OpusEncoder(settings: settings)
                Issue.record("\(settings) was accepted")
            } catch {
                #expect(error.code == .badArgument)
            }
        }
        #expect(throws: OpusError.self) { _ = try OpusDecoder(channels: 0) }
        var encoder = try OpusEncoder(settings: AudioEncoderSettings(channels: 1, frameDurationMs: 20))
        var output = EncodedFrame(codec: .opus)
        for frame in [AudioFrame(silenceOf: 480, channels: 1), AudioFrame(silenceOf: 960, channels: 2)] {
            do {
                try encoder.encode(frame, into: &output)
                Issue.record("a \(frame.frameCount)-sample, \(frame.channels)-channel frame was accepted")
            } catch {
                #expect(error.code == .badArgument)
            }
        }
    }

    @Test("Concealing one lost packet gives non-silent, bounded audio")
    func concealment() throws {
        let settings = AudioEncoderSettings(channels: 1, bitrate: 32_000, frameDurationMs: 20)
        let input = SyntheticAudio.toneMix(frameCount: ms(600), channels: 1)
        let (packets, _, _) = try roundTrip(input, settings: settings)
        var decoder = try OpusDecoder(channels: 1)
        for packet in packets.prefix(20) { _ = try decoder.decode(packet) }
        let concealed = try decoder.concealLoss(durationMs: 20, timestamp: .milliseconds(400))
        #expect(concealed.frameCount == 960 && concealed.timestamp == .milliseconds(400))
        let rms = (SyntheticAudio.energy(concealed.samples, channels: 1, channel: 0, range: 0..<960) / 960).squareRoot()
        let inputRMS = (SyntheticAudio.energy(input, channels: 1, channel: 0, range: 0..<ms(600)) / Double(ms(600))).squareRoot()
        #expect(rms >= 0.1 * inputRMS, "concealment RMS \(rms) against input \(inputRMS)")
        #expect(rms <= 1.5 * inputRMS, "concealment RMS \(rms) against input \(inputRMS)")
        let peak = concealed.samples.map { abs(Int($0)) }.max() ?? 0
        let inputPeak = input.map { abs(Int($0)) }.max() ?? 0
        #expect(peak <= inputPeak * 3 / 2, "concealment peak \(peak) against input \(inputPeak)")
        // The stream goes on after the loss.
        #expect(try decoder.decode(packets[21]).frameCount == 960)
        #expect(throws: OpusError.self) { _ = try decoder.concealLoss(durationMs: 0, timestamp: .zero) }
        #expect(throws: OpusError.self) { _ = try decoder.concealLoss(durationMs: 7, timestamp: .zero) }
    }

    @Test("In-band FEC recovers a lost packet of speech better than concealment does")
    func forwardErrorCorrection() throws {
        let settings = AudioEncoderSettings(channels: 1, bitrate: 32_000, frameDurationMs: 20, inbandFEC: true,
                                            expectedLossPercent: 10)
        let input = SyntheticAudio.speechLike(frameCount: ms(2400))
        let (packets, _, lookahead) = try roundTrip(input, settings: settings)
        var withFEC = try OpusDecoder(channels: 1)
        var withPLC = try OpusDecoder(channels: 1)
        // Packets in the middle of syllables: in the gaps there is only the noise floor, which
        // no codec reproduces sample for sample, so correlation would measure nothing there.
        let lost: Set = [25, 36, 47, 58, 69, 80, 92, 103]
        var fecTotal = 0.0, plcTotal = 0.0
        for (index, packet) in packets.enumerated() {
            guard lost.contains(index) else {
                _ = try withFEC.decode(packet)
                _ = try withPLC.decode(packet)
                continue
            }
            let timestamp = packet.timestamp
            let recovered = try withFEC.decodeFEC(from: packets[index + 1], durationMs: 20, timestamp: timestamp)
            let concealed = try withPLC.concealLoss(durationMs: 20, timestamp: timestamp)
            #expect(recovered.frameCount == 960 && recovered.timestamp == timestamp)
            // The decoded frame lags the input by the encoder's look-ahead.
            let original = Array(input[(index * 960 - lookahead)..<(index * 960 - lookahead + 960)])
            let fec = SyntheticAudio.correlation(original, recovered.samples, channels: 1, channel: 0, lag: 0, range: 0..<960)
            let plc = SyntheticAudio.correlation(original, concealed.samples, channels: 1, channel: 0, lag: 0, range: 0..<960)
            fecTotal += fec
            plcTotal += plc
        }
        let fec = fecTotal / Double(lost.count), plc = plcTotal / Double(lost.count)
        // Measured: FEC 0.83, concealment 0.19 (a normal decode of the same packets: 0.85).
        #expect(fec > plc + 0.3, "mean correlation: FEC \(fec), concealment \(plc)")
        #expect(fec >= 0.7, "mean FEC correlation \(fec)")
    }

    @Test("Corrupt packets throw OPUS_INVALID_PACKET",
          arguments: [[], [0x03], [0x03, 0x00], [0x01, 0x00, 0x00, 0x00], [0x02, 0xFB, 0x00], [0x0B, 0x8F, 0xFF]] as [[UInt8]])
    func corruptPackets(_ bytes: [UInt8]) throws {
        var decoder = try OpusDecoder(channels: 2)
        do {
            let audio = try decoder.decode(EncodedFrame(codec: .opus, data: bytes))
            Issue.record("packet \(bytes) decoded to \(audio.frameCount) samples")
        } catch {
            #expect(error.code == .invalidPacket, "\(error)")
        }
        #expect(throws: OpusError.self) { _ = try decoder.decodeFEC(from: EncodedFrame(codec: .opus, data: bytes), durationMs: 20, timestamp: .zero) }
    }

    @Test("Random bytes decode or throw OpusError, never crash")
    func randomPackets() throws {
        var random = SeededRandom(seed: 48_000)
        var decoder = try OpusDecoder(channels: 2)
        var failures = 0
        for _ in 0..<300 {
            let length = Int(random.next() % 200) + 1
            let bytes = (0..<length).map { _ in UInt8(truncatingIfNeeded: random.next()) }
            do {
                let audio = try decoder.decode(EncodedFrame(codec: .opus, data: bytes))
                #expect(audio.frameCount <= OpusDecoder.maxFrameCount)
            } catch {
                failures += 1
            }
        }
        #expect(failures > 0)
    }

    @Test("With DTX, a second of silence encodes to packets of at most 3 bytes")
    func discontinuousTransmission() throws {
        func packetSizes(dtx: Bool) throws -> [Int] {
            let settings = AudioEncoderSettings(channels: 1, bitrate: 32_000, frameDurationMs: 20, dtx: dtx)
            let (packets, decoded, _) = try roundTrip([Int16](repeating: 0, count: ms(1000)), settings: settings)
            #expect(decoded.allSatisfy { abs(Int($0)) < 64 }, "silence decoded to sound")
            return packets.map(\.data.count)
        }
        // libopus waits 200 ms of silence before DTX starts, then refreshes the comfort
        // noise every 400 ms: measured 39 of 50 packets of 1 byte, the rest about 20 bytes.
        let sizes = try packetSizes(dtx: true)
        #expect(sizes.filter { $0 <= 3 }.count >= 35, "packet sizes with DTX: \(sizes)")
        #expect(sizes.dropFirst(10).filter { $0 <= 3 }.count >= 36, "packet sizes with DTX: \(sizes)")
        #expect(sizes.allSatisfy { $0 >= 1 }, "DTX packets are kept, not dropped")
        let withoutDTX = try packetSizes(dtx: false)
        #expect(withoutDTX.filter { $0 <= 3 }.count <= 5, "packet sizes without DTX: \(withoutDTX)")
    }

    @Test("Encoding and decoding reuse their buffers")
    func buffersAreReused() throws {
        let settings = AudioEncoderSettings(channels: 2, bitrate: 64_000, frameDurationMs: 20)
        let input = SyntheticAudio.toneMix(frameCount: ms(200), channels: 2)
        var encoder = try OpusEncoder(settings: settings)
        var decoder = try OpusDecoder(channels: 2)
        var output = EncodedFrame(codec: .opus)
        output.data.reserveCapacity(OpusEncoder.maxPacketSize)
        let packetAddress = output.data.withUnsafeBufferPointer { $0.baseAddress }
        var sampleAddresses: Set<UnsafePointer<Int16>?> = []
        for index in 0..<10 {
            let frame = AudioFrame(samples: Array(input[index * 1920..<(index + 1) * 1920]), channels: 2)
            try encoder.encode(frame, into: &output)
            #expect(output.data.withUnsafeBufferPointer { $0.baseAddress } == packetAddress)
            // The decoded frame is dropped before the next decode, so its storage is free again.
            sampleAddresses.insert(try decoder.decode(output).samples.withUnsafeBufferPointer { $0.baseAddress })
        }
        #expect(sampleAddresses.count == 1)
    }

    @Test("A live bitrate change changes packet sizes")
    func liveBitrateChange() throws {
        let settings = AudioEncoderSettings(channels: 2, bitrate: 96_000, frameDurationMs: 20)
        let input = SyntheticAudio.toneMix(frameCount: ms(2000), channels: 2)
        var encoder = try OpusEncoder(settings: settings, application: .audio)
        var output = EncodedFrame(codec: .opus)
        var before = 0, after = 0
        for index in 0..<100 {
            if index == 50 { try encoder.setBitrate(24_000) }
            let start = index * 1920
            try encoder.encode(AudioFrame(samples: Array(input[start..<start + 1920]), channels: 2), into: &output)
            if (10..<50).contains(index) { before += output.data.count }
            if (60..<100).contains(index) { after += output.data.count }
        }
        #expect(encoder.settings.bitrate == 24_000)
        let rateBefore = Double(before * 8) / 0.8, rateAfter = Double(after * 8) / 0.8
        #expect(rateAfter < rateBefore / 2, "\(rateBefore) b/s before, \(rateAfter) b/s after")
        #expect(abs(rateAfter - 24_000) <= 0.3 * 24_000, "\(rateAfter) b/s after the change to 24 kb/s")
        #expect(throws: OpusError.self) { try encoder.setBitrate(0) }
    }
}
