import ArgumentParser
import ConferLive
import ConferNet

/// `confer host`'s forward for an audience outside the meeting: where the plain-RTP copy of
/// the composite and of the mix goes, and the SFU's RTCP ports for them.
struct ForwardOptions: ParsableArguments {
    @Option(help: "HOST:PORT to send a plain-RTP copy of the composite to (payload type 96), for an SFU to fan out; a forward the room's administrator sets (`confer rooms forward`) takes its place while set.")
    var forwardVideo: String?
    @Option(help: "HOST:PORT to send a plain-RTP copy of the whole mix to (Opus, payload type 111); needs --forward-video.")
    var forwardAudio: String?
    @Option(help: "HOST:PORT of the forward's video RTCP (Janus: rtcpport): sender reports go there, keyframe requests come from there.")
    var forwardVideoRtcp: String?
    @Option(help: "HOST:PORT of the forward's audio RTCP: sender reports for the mix go there; needs --forward-audio.")
    var forwardAudioRtcp: String?

    func validate() throws {
        let named = [("--forward-video", forwardVideo), ("--forward-audio", forwardAudio),
                     ("--forward-video-rtcp", forwardVideoRtcp), ("--forward-audio-rtcp", forwardAudioRtcp)]
        for (name, value) in named {
            if let value, UDPAddress(parsing: value).map({ (1 ... 65535).contains($0.port) }) != true {
                throw ValidationError("\(name) must be HOST:PORT with a port from 1 to 65535 (got \(value))")
            }
        }
        for (name, value, needs, needed) in [("--forward-audio", forwardAudio, "--forward-video", forwardVideo),
                                             ("--forward-video-rtcp", forwardVideoRtcp, "--forward-video", forwardVideo),
                                             ("--forward-audio-rtcp", forwardAudioRtcp, "--forward-audio", forwardAudio)]
        where value != nil && needed == nil {
            throw ValidationError("\(name) goes with \(needs)")
        }
    }

    /// Where the forward goes, when `--forward-video` names it.
    var target: LiveForwardTarget? {
        forwardVideo.flatMap(UDPAddress.init(parsing:)).map { video in
            LiveForwardTarget(video: video, audio: forwardAudio.flatMap(UDPAddress.init(parsing:)),
                              videoRTCP: forwardVideoRtcp.flatMap(UDPAddress.init(parsing:)),
                              audioRTCP: forwardAudioRtcp.flatMap(UDPAddress.init(parsing:)))
        }
    }
}
