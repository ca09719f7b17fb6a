@testable import Confer   // the buffers' fill levels are internal: fuzzing is what checks them
import ConferMedia

/// Checks that `pipeline` holds no more than its configuration bounds: packets and frames
/// in the video jitter buffer, NACKs pending, audio buffered.
public func checkBounds(of pipeline: ReceivePipeline) {
    if let buffer = pipeline.video?.jitterBuffer {
        require(buffer.bufferedPacketCount <= buffer.packetCapacity, "\(buffer.bufferedPacketCount) packets buffered")
        require(buffer.bufferedFrameCount <= buffer.packetCapacity, "\(buffer.bufferedFrameCount) frames buffered")
        require(buffer.pendingNackCount <= buffer.configuration.nack.maxListSize, "\(buffer.pendingNackCount) NACKs pending")
    }
    if let audio = pipeline.statistics.audio, let configuration = pipeline.configuration.audio {
        // An Opus packet holds at most 120 ms, which may land on top of a full buffer.
        let limit = configuration.jitterBuffer.maximumBufferedDuration.seconds + 0.12
        require(audio.bufferLevel <= limit, "\(audio.bufferLevel) s of audio buffered")
    }
}

/// Checks that `host` holds no more than its bounds: the composite's packet history, and
/// each participant's receive chain (``checkBounds(of:)``).
public func checkBounds(of host: HostPipeline) {
    let history = host.video.history
    require(history.storedPacketCount <= host.configuration.historyCapacity, "\(history.storedPacketCount) packets in the history")
    for participant in host.participants { checkBounds(of: participant.receive) }
}
