public import ConferLive
import ConferSession
import ConferMedia
import ConferNet
import Synchronization

/// A call's media on this device: binds a UDP socket, tells the server where it receives,
/// waits for the other side's address and the keys, then sends the camera (for a video
/// call) and the microphone straight to the other side and decodes what it sends — the
/// same send and receive pipelines as a meeting, with the peer in the host's place. Each
/// side sends in its own codec (``CallMediaOptions/codec``) and decodes the other's.
/// Reports media connected at the first decoded picture (or, in a voice call, the first
/// played packet), and ends the call as lost when media stops for longer than
/// ``CallMediaOptions/mediaLossTimeout``.
public enum CallMediaSession {
    /// Runs until the call ends (or `control` is stopped); the run's figures. `onFirstFrame`
    /// is told when the first picture of the other side is rendered.
    public static func run(_ call: Call, options: CallMediaOptions = CallMediaOptions(), control: LiveMeetingControl = LiveMeetingControl(),
                           onFirstFrame: @escaping @Sendable (ContinuousClock.Instant) -> Void = { _ in }) async throws -> LiveMeetingControl.Figures {
        let video = call.state.current.record.video
        let width = min(options.cameraWidth, CallMediaOptions.maximumSize.width)
        let height = min(options.cameraHeight, CallMediaOptions.maximumSize.height)
        let frameRate = min(options.frameRate, CallMediaOptions.maximumFrameRate)
        let reported = Atomic<Bool>(false)
        let report: @Sendable () -> Void = {
            guard !reported.exchange(true, ordering: .relaxed) else { return }
            Task { await call.reportMediaConnected() }
        }
        return try await withThrowingTaskGroup(of: LiveMeetingControl.Figures?.self) { group in
            @Sendable func runMedia() async throws -> LiveMeetingControl.Figures? {
                let stun = options.usesSTUN && options.announcedAddress == nil ? call.stunServer : nil
                return try await LiveMeetingParticipant.run(bindingTo: options.bindHost, reflexiveThrough: stun, control: control) { port in
                    let announced = AnnouncedMediaAddress.announcing(options.announcedAddress, bindHost: options.bindHost, boundPort: port,
                                                                     reflexive: control.reflexive)
                    await call.describeMedia(MediaDescription(host: announced.host, port: announced.port, alternates: announced.alternates,
                                                              codec: options.codec.rawValue, width: width, height: height, frameRate: frameRate))
                    var media: CallMedia?
                    for await info in call.state.values {
                        if info.phase == .ended { return nil }
                        if let ready = info.media {
                            media = ready
                            break
                        }
                    }
                    guard let media, let codec = Codec(rawValue: media.peer.codec) else { return nil }
                    var configuration = LiveMeetingParticipantConfiguration(
                        plan: LiveMeetingPlan(codec: codec, canvasWidth: media.peer.width, canvasHeight: media.peer.height,
                                              frameRate: media.peer.frameRate),
                        host: UDPAddress(host: media.peer.host, port: media.peer.port), slot: media.slot,
                        uplinkKey: media.sendKey, downlinkKey: media.receiveKey)
                    // Each direction is the sender's: this side sends its own codec and rate,
                    // and decodes the other's as its description says (the plan).
                    configuration.hostAlternates = media.peer.alternateUDPAddresses
                    configuration.cameraCodec = options.codec
                    configuration.cameraFrameRate = frameRate
                    configuration.sendsCamera = video
                    configuration.cameraFile = options.cameraFile
                    configuration.microphoneFile = options.microphoneFile
                    configuration.cameraWidth = width
                    configuration.cameraHeight = height
                    configuration.cameraBitrate = options.cameraBitrate
                    configuration.videoOutput = video ? options.videoOutput : nil
                    configuration.audioOutput = options.audioOutput
                    configuration.bindHost = options.bindHost
                    configuration.onRender = { _, at in
                        onFirstFrame(at)
                        report()
                    }
                    return configuration
                }
            }
            group.addTask {
                do {
                    return try await runMedia()
                } catch {
                    // Media that cannot start (a camera file that cannot be read, a codec the
                    // other side cannot take) ends the call: the answering side says accept failed.
                    control.stop()
                    if call.state.current.record.connected == nil, call.state.current.phase != .ended {
                        if call.isCaller { await call.end() } else { await call.reportAcceptFailed() }
                    }
                    throw error
                }
            }
            group.addTask {
                // Watches the call and the media: the call ending stops the media; media that
                // stops arriving for longer than the timeout ends the call as lost.
                var lastReceived = 0
                var lastChange = ContinuousClock.now
                var applied: CallSettings?
                while !control.isStopped, !Task.isCancelled {
                    if call.state.current.phase == .ended { break }
                    // This side's own microphone and camera as the call says (mute, stop video).
                    let mine = call.isCaller ? call.state.current.callerSettings : call.state.current.calleeSettings
                    if mine != applied {
                        applied = mine
                        control.send(.devices(identity: call.identity, camera: mine.video, microphone: mine.audio))
                    }
                    let figures = control.figures
                    let received = figures.audioPacketsReceived + figures.framesReceived
                    if received != lastReceived {
                        lastReceived = received
                        lastChange = ContinuousClock.now
                        // A voice call has no picture to wait for: played audio is connected.
                        if !video, figures.audioPacketsReceived > 0 { report() }
                    } else if received > 0, ContinuousClock.now - lastChange > options.mediaLossTimeout,
                              call.state.current.reconnecting.isEmpty {
                        await call.end(lost: true)
                        break
                    }
                    try? await Task.sleep(for: .milliseconds(100))
                }
                control.stop()
                return nil
            }
            var figures = LiveMeetingControl.Figures()
            for try await result in group {
                if let result { figures = result }
            }
            return figures
        }
    }
}
