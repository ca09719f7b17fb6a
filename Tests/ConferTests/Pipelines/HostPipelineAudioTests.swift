import Testing
import Confer
import ConferMedia
import ConferMixer

@Suite struct HostPipelineAudioTests {
    /// Everyone talks at once: each participant hears the others' tones and not its own,
    /// end to end through Opus, the network and both jitter buffers.
    @Test func everyoneHearsEveryoneButThemselves() throws {
        let meeting = try TestMeeting(count: 3)
        try meeting.run(until: .seconds(2))
        for listener in meeting.endpoints {
            for talker in meeting.endpoints {
                let power = listener.power(at: ToneSource.frequency(forIndex: talker.index), lastSeconds: 1)
                if talker === listener {
                    #expect(power < 1e-5, "participant \(listener.index) hears itself at \(power)")
                } else {
                    // A tone of amplitude 0.25 measures 0.25² / 2 ≈ 0.031.
                    #expect(power > 0.01, "participant \(listener.index) hears \(talker.index) at only \(power)")
                }
            }
            #expect(listener.receiver.statistics.audio?.packetsLost == 0)
        }
        let statistics = meeting.host.statistics
        // All three contribute, so each has its own mix and nobody hears the shared one.
        #expect(statistics.audioEncodersInUse == 3)
        #expect(statistics.participants.values.allSatisfy { $0.isSpeaking && $0.hasOwnAudioEncoder })
    }

    /// One participant talks, three are silent: the silent ones share one encoder of the
    /// shared mix, so the host runs two encoders, not four.
    @Test func onlySpeakersCostAnEncoder() throws {
        let meeting = try TestMeeting(count: 4) { index in
            ToneSource(index: index, amplitude: index == 0 ? 0.25 : 0, pattern: .continuous)
        }
        try meeting.run(until: .seconds(1.5))
        let statistics = meeting.host.statistics
        #expect(statistics.audioEncodersInUse == 2)
        #expect(statistics.maximumAudioEncodersInUse <= 2)
        #expect(statistics.audioEncodersCreated == 2)
        // Two encodes per 20 ms frame at most: the shared one and the talker's.
        let frames = 1500 / 20 + 1
        #expect(statistics.audioFramesEncoded <= 2 * frames && statistics.audioFramesEncoded >= 2 * (frames - 5))
        let talker = try #require(statistics.participants[meeting.endpoints[0].id])
        #expect(talker.isSpeaking && talker.hasOwnAudioEncoder)
        #expect(meeting.host.activeSpeaker == meeting.endpoints[0].id)
        for endpoint in meeting.endpoints.dropFirst() {
            let listener = try #require(statistics.participants[endpoint.id])
            #expect(!listener.isSpeaking && !listener.hasOwnAudioEncoder)
            #expect(endpoint.power(at: ToneSource.frequency(forIndex: 0), lastSeconds: 1) > 0.01)
            // Every listener still gets its own unbroken stream from the shared encoder.
            #expect(listener.audioPacketsSent >= frames - 3)
        }
        // The talker hears the silent room.
        #expect(meeting.endpoints[0].power(at: ToneSource.frequency(forIndex: 0), lastSeconds: 1) < 1e-5)
    }

    /// Talk spurts that start and stop at any 10 ms step move listeners between the shared
    /// encoder and their own mid-stream: nobody ever hears itself, every stream stays
    /// continuous, and the pool is reused rather than grown.
    @Test func speakersChangingHandsKeepEveryStreamWhole() throws {
        let spurts = ToneSource.TalkSpurts(spurt: 0.2 ... 0.5, gap: 0.3 ... 0.8)
        var host = TestMeeting.smallHost()
        // A short hold, so the gate closes soon after each spurt and listeners move often.
        host.mixer = AudioMixerConfiguration(speaking: SpeakingSettings(hold: .milliseconds(100)))
        let meeting = try TestMeeting(count: 3, host: host) { index in
            ToneSource(index: index, amplitude: 0.25, pattern: .talkSpurts(spurts), seed: UInt64(7 + index))
        }
        var handovers = 0
        var wasOwn: [Bool] = [false, false, false]
        for step in 1 ... 300 {
            try meeting.run(until: .milliseconds(Int64(step) * 10))
            let statistics = meeting.host.statistics
            for endpoint in meeting.endpoints {
                let own = statistics.participants[endpoint.id]?.hasOwnAudioEncoder ?? false
                if own != wasOwn[endpoint.index] { handovers += 1 }
                wasOwn[endpoint.index] = own
            }
        }
        #expect(handovers >= 6, "only \(handovers) handovers: the test does not exercise switching")
        let statistics = meeting.host.statistics
        #expect(statistics.audioEncodersCreated <= 4)
        for listener in meeting.endpoints {
            let audio = try #require(listener.receiver.statistics.audio)
            #expect(audio.packetsLost == 0 && audio.packetsDiscarded == 0 && audio.streamResets == 0)
            // Its own tone never reaches it, though it talked for much of the run.
            let own = ToneSource.frequency(forIndex: listener.index)
            #expect(listener.power(at: own, lastSeconds: 2.5) < 1e-5)
            let other = ToneSource.frequency(forIndex: (listener.index + 1) % 3)
            #expect(listener.power(at: other, lastSeconds: 2.5) > 1e-3)
        }
    }
}
