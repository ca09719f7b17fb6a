/// Which local extension id means which header extension, as negotiated in SDP
/// (`a=extmap:<id> <uri>`), with the ids Confer reads on every packet cached for speed.
public struct RTPExtensionMap: Hashable, Sendable {
    /// RFC 6464 client-to-mixer audio level.
    public static let audioLevelURI = RTPAudioLevel.uri
    /// WebRTC absolute send time.
    public static let absoluteSendTimeURI = RTPAbsoluteSendTime.uri
    /// Transport-wide sequence number for transport-cc.
    public static let transportSequenceNumberURI = RTPTransportSequenceNumber.uri
    /// RFC 5450 transmission time offset.
    public static let transmissionTimeOffsetURI = "urn:ietf:params:rtp-hdrext:toffset"
    /// RFC 8843 media identification (MID).
    public static let midURI = "urn:ietf:params:rtp-hdrext:sdes:mid"
    /// RFC 8852 RTP stream id (RID).
    public static let rtpStreamIDURI = "urn:ietf:params:rtp-hdrext:sdes:rtp-stream-id"
    /// RFC 8852 repaired RTP stream id.
    public static let repairedRTPStreamIDURI = "urn:ietf:params:rtp-hdrext:sdes:repaired-rtp-stream-id"
    /// 3GPP TS 26.114 coordination of video orientation.
    public static let videoOrientationURI = "urn:3gpp:video-orientation"
    /// WebRTC playout delay limits.
    public static let playoutDelayURI = "http://www.webrtc.org/experiments/rtp-hdrext/playout-delay"
    /// WebRTC absolute capture time.
    public static let absoluteCaptureTimeURI = "http://www.webrtc.org/experiments/rtp-hdrext/abs-capture-time"

    private var idsByURI: [String: UInt8] = [:]
    private var urisByID: [UInt8: String] = [:]

    /// The id of the audio level extension, if negotiated.
    public private(set) var audioLevelID: UInt8?
    /// The id of the abs-send-time extension, if negotiated.
    public private(set) var absoluteSendTimeID: UInt8?
    /// The id of the transport-wide sequence number extension, if negotiated.
    public private(set) var transportSequenceNumberID: UInt8?

    /// An empty map: no extension negotiated.
    public init() {}

    /// A map with the given `uri: id` pairs.
    ///
    /// - Throws: ``RTPError/invalidExtensionID(_:)`` for id 0 or an id used twice.
    public init(_ pairs: KeyValuePairs<String, UInt8>) throws(RTPError) {
        for (uri, id) in pairs { try register(uri, id: id) }
    }

    /// The ids Confer offers by default, all small enough for the one-byte form:
    /// audio level 1, abs-send-time 2, transport-wide sequence number 3, MID 4.
    public static let standard: RTPExtensionMap = {
        var map = RTPExtensionMap()
        map.idsByURI = [audioLevelURI: 1, absoluteSendTimeURI: 2, transportSequenceNumberURI: 3, midURI: 4]
        map.urisByID = [1: audioLevelURI, 2: absoluteSendTimeURI, 3: transportSequenceNumberURI, 4: midURI]
        map.refreshCache()
        return map
    }()

    /// Maps `uri` to `id`, replacing any id `uri` had.
    ///
    /// - Throws: ``RTPError/invalidExtensionID(_:)`` when `id` is 0 or already means another URI.
    public mutating func register(_ uri: String, id: UInt8) throws(RTPError) {
        guard id != 0 else { throw .invalidExtensionID(id) }
        if let existing = urisByID[id], existing != uri { throw .invalidExtensionID(id) }
        if let old = idsByURI[uri] { urisByID[old] = nil }
        idsByURI[uri] = id
        urisByID[id] = uri
        refreshCache()
    }

    /// Forgets `uri`.
    public mutating func unregister(_ uri: String) {
        if let id = idsByURI.removeValue(forKey: uri) { urisByID[id] = nil }
        refreshCache()
    }

    /// The id negotiated for `uri`, or nil.
    public func id(for uri: String) -> UInt8? { idsByURI[uri] }

    /// The URI negotiated for `id`, or nil.
    public func uri(for id: UInt8) -> String? { urisByID[id] }

    /// The id for a typed extension, or nil.
    public func id<T: RTPHeaderExtensionValue>(for type: T.Type) -> UInt8? { idsByURI[T.uri] }

    /// Whether every id fits the one-byte form (1–14).
    public var fitsOneByteForm: Bool { urisByID.keys.allSatisfy { $0 <= 14 } }

    private mutating func refreshCache() {
        audioLevelID = idsByURI[Self.audioLevelURI]
        absoluteSendTimeID = idsByURI[Self.absoluteSendTimeURI]
        transportSequenceNumberID = idsByURI[Self.transportSequenceNumberURI]
    }
}

extension RTPPacketView {
    /// The audio level, if the map negotiates it and the packet carries it.
    @inlinable
    public func audioLevel(_ map: RTPExtensionMap) throws(RTPError) -> RTPAudioLevel? {
        guard let id = map.audioLevelID else { return nil }
        return try extensionValue(RTPAudioLevel.self, id: id)
    }

    /// The abs-send-time, if the map negotiates it and the packet carries it.
    @inlinable
    public func absoluteSendTime(_ map: RTPExtensionMap) throws(RTPError) -> RTPAbsoluteSendTime? {
        guard let id = map.absoluteSendTimeID else { return nil }
        return try extensionValue(RTPAbsoluteSendTime.self, id: id)
    }

    /// The transport-wide sequence number, if the map negotiates it and the packet carries it.
    @inlinable
    public func transportSequenceNumber(_ map: RTPExtensionMap) throws(RTPError) -> UInt16? {
        guard let id = map.transportSequenceNumberID else { return nil }
        return try extensionValue(RTPTransportSequenceNumber.self, id: id)?.value
    }
}
