/// One call as the call log keeps it: who called whom, how it was answered, when each step
/// happened and how it ended.
public struct CallRecord: Sendable, Codable, Hashable {
    /// The server's id for the call.
    public var id: String
    /// The caller's identity.
    public var caller: String
    /// The callee's identity.
    public var callee: String
    /// A video call (otherwise voice only).
    public var video: Bool
    /// The callee's device that answered.
    public var acceptedDevice: String?
    /// The caller's device.
    public var callerDevice: String
    /// When the call was dialed.
    public var started: SessionTime
    /// When it was answered.
    public var accepted: SessionTime?
    /// When media connected.
    public var connected: SessionTime?
    /// When it ended.
    public var ended: SessionTime?
    /// How it ended; nil while it goes on.
    public var result: CallEndResult?
    /// Who ended it (an identity); nil when a rule of the server did (a timeout).
    public var endedBy: String?
    /// Why a dial failed, when it did.
    public var failure: SessionRefusal?
    /// The call's custom items.
    public var customItems: [String: String]

    /// A call dialed at `started`.
    public init(id: String, caller: String, callerDevice: String, callee: String, video: Bool, started: SessionTime,
                customItems: [String: String] = [:]) {
        self.id = id
        self.caller = caller
        self.callerDevice = callerDevice
        self.callee = callee
        self.video = video
        self.started = started
        self.customItems = customItems
    }

    /// Time with media connected, up to the end (zero for a call that never connected).
    public var duration: Duration {
        guard let connected, let ended else { return .zero }
        return ended - connected
    }

    /// The phase the log's fields imply.
    public var phase: CallPhase {
        if result != nil { return .ended }
        if connected != nil { return .connected }
        if accepted != nil { return .accepted }
        return .ringing
    }
}

/// A side's devices as the other side sees them: microphone and camera on or off.
public struct CallSettings: Sendable, Codable, Hashable {
    /// The microphone sends.
    public var audio: Bool
    /// The camera sends.
    public var video: Bool

    /// Settings with the microphone and camera as given.
    public init(audio: Bool = true, video: Bool) {
        self.audio = audio
        self.video = video
    }
}

/// What one device needs to exchange media with the other side: where the other side
/// receives, what it sends, and an SRTP master key per direction, made by the server at
/// accept and handed only to the two devices in the call.
public struct CallMedia: Sendable, Codable, Hashable {
    /// The other side's address and stream description.
    public var peer: MediaDescription
    /// This side's slot: 1 for the caller, 2 for the callee (fixes the SSRCs).
    public var slot: UInt32
    /// Key and salt for what this side sends.
    public var sendKey: [UInt8]
    /// Key and salt for what this side receives.
    public var receiveKey: [UInt8]

    /// Media with the given peer and keys.
    public init(peer: MediaDescription, slot: UInt32, sendKey: [UInt8], receiveKey: [UInt8]) {
        self.peer = peer
        self.slot = slot
        self.sendKey = sendKey
        self.receiveKey = receiveKey
    }
}

/// A call as one device sees it: the log's record, the live state around it, and (for the
/// two devices in the call) the media to set up.
public struct CallInfo: Sendable, Codable, Hashable {
    /// The call as logged.
    public var record: CallRecord
    /// The phase as this device sees it (a device that lost the answer to another sees `ended`).
    public var phase: CallPhase
    /// How the call ended for this device (``CallEndResult/otherDeviceAccepted`` for a
    /// device that lost the answer, while the call goes on).
    public var result: CallEndResult?
    /// The caller's microphone and camera.
    public var callerSettings: CallSettings
    /// The callee's microphone and camera.
    public var calleeSettings: CallSettings
    /// Identities whose connection dropped and who may still come back.
    public var reconnecting: [String]
    /// The media set-up, for the two devices in the call once both have described theirs.
    public var media: CallMedia?
    /// The video codec the caller said it sends when it dialed (nil: a voice call, or a
    /// caller that did not say), for every device of the call from the first ring.
    public var callerCodec: String?

    /// The call's id.
    public var id: String { record.id }

    /// A view of `record` in `phase`.
    public init(record: CallRecord, phase: CallPhase, result: CallEndResult?, callerSettings: CallSettings, calleeSettings: CallSettings,
                reconnecting: [String] = [], media: CallMedia? = nil, callerCodec: String? = nil) {
        self.record = record
        self.phase = phase
        self.result = result
        self.callerSettings = callerSettings
        self.calleeSettings = calleeSettings
        self.reconnecting = reconnecting
        self.media = media
        self.callerCodec = callerCodec
    }

    /// The other side's identity, seen from `identity`.
    public func peer(of identity: String) -> String { identity == record.caller ? record.callee : record.caller }
}
