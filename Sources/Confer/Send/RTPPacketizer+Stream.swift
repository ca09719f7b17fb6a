import ConferMedia
import ConferRTP

extension RTPPacketizer {
    /// The packetizer of one outgoing stream of a pipeline, its first sequence number and
    /// timestamp origin drawn from `random`; its settings' mistakes are reported through
    /// `error` (the pipeline's own error type, as an invalid configuration).
    init<E: Error>(stream codec: Codec, ssrc: UInt32, payloadType: UInt8, random: inout SeededRandom,
                   transportSequenceNumberID: UInt8?, absoluteSendTimeID: UInt8?, marksTalkspurts: Bool = false,
                   writesTemporalLayers: Bool = false, vp9Layers: VP9LayerSignalling = .flexibleMode,
                   error: (String) -> E) throws(E) {
        let first = UInt16(truncatingIfNeeded: random.next())
        let offset = UInt32(truncatingIfNeeded: random.next())
        do {
            try self.init(codec: codec, ssrc: ssrc, payloadType: payloadType, firstSequenceNumber: first, timestampOffset: offset,
                          transportSequenceNumberID: transportSequenceNumberID, absoluteSendTimeID: absoluteSendTimeID,
                          marksTalkspurts: marksTalkspurts, writesTemporalLayers: writesTemporalLayers, vp9Layers: vp9Layers)
        } catch let failure {
            throw error(failure.description)
        }
    }

    /// The writer of padding-only probe packets on a stream's RTX SSRC (RTX numbers come
    /// from the packet history, so its own numbers start at zero).
    init<E: Error>(rtxOf codec: Codec, ssrc: UInt32, payloadType: UInt8, transportSequenceNumberID: UInt8?,
                   absoluteSendTimeID: UInt8?, error: (String) -> E) throws(E) {
        do {
            try self.init(codec: codec, ssrc: ssrc, payloadType: payloadType, firstSequenceNumber: 0, timestampOffset: 0,
                          transportSequenceNumberID: transportSequenceNumberID, absoluteSendTimeID: absoluteSendTimeID)
        } catch let failure {
            throw error(failure.description)
        }
    }
}
