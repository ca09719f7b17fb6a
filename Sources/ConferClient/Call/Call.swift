public import ConferNet
public import ConferSession
import Synchronization

/// One call as a device holds it: its state (``state``, current value first), its events,
/// and the actions a side may take. Made by ``CallClient/dial(_:video:customItems:ringingTimeout:connectionTimeout:)``
/// for the caller and handed to the callee through ``CallClient/ringing``.
public final class Call: Sendable, Hashable, CustomStringConvertible {
    /// The server's id for the call.
    public let id: String
    /// The signed-in user's identity.
    public let identity: String
    /// The call as it stands for this device.
    public let state: ObservedValue<CallInfo>
    /// Every change from the moment of subscription.
    public let events = EventBroadcast<CallEvent>()
    /// The other side's microphone and camera, current value first.
    public let remoteSettings: ObservedValue<CallSettings>
    /// The call's custom items, current value first.
    public let customItems: ObservedValue<[String: String]>
    /// The server's STUN responder when the call was made (``CallClient/stunServer``):
    /// ``CallMediaSession`` asks it where the media socket is seen from.
    public let stunServer: UDPAddress?
    private let transport: @Sendable (CallClientMessage) async -> Void
    private let settings: Mutex<CallSettings>

    init(info: CallInfo, identity: String, stunServer: UDPAddress? = nil, sender: @escaping @Sendable (CallClientMessage) async -> Void) {
        id = info.id
        self.identity = identity
        self.stunServer = stunServer
        state = ObservedValue(info)
        transport = sender
        settings = Mutex(identity == info.record.caller ? info.callerSettings : info.calleeSettings)
        remoteSettings = ObservedValue(identity == info.record.caller ? info.calleeSettings : info.callerSettings)
        customItems = ObservedValue(info.record.customItems)
    }

    /// Whether this device placed the call.
    public var isCaller: Bool { state.current.record.caller == identity }
    /// The other side's identity.
    public var peer: String { state.current.peer(of: identity) }

    /// Answers the call on this device.
    public func accept() async { await sender(.accept(call: id)) }
    /// Refuses the call for every device of this user.
    public func decline() async { await sender(.decline(call: id)) }
    /// Hangs up: cancels while ringing, ends once answered. `lost` says this side's media
    /// stopped and did not return.
    public func end(lost: Bool = false) async { await sender(.end(call: id, lost: lost)) }
    /// Says where this device receives the call's media and what it sends.
    public func describeMedia(_ description: MediaDescription) async { await sender(.media(call: id, description)) }
    /// Says this device decodes the other side's media.
    public func reportMediaConnected() async { await sender(.mediaConnected(call: id)) }
    /// Says this device could not start its media after answering.
    public func reportAcceptFailed() async { await sender(.acceptFailed(call: id)) }
    /// Turns the microphone off (`true`) or on, and tells the other side.
    public func mute(_ muted: Bool = true) async { await update { $0.audio = !muted } }
    /// Turns the camera on and tells the other side.
    public func startVideo() async { await update { $0.video = true } }
    /// Turns the camera off and tells the other side.
    public func stopVideo() async { await update { $0.video = false } }
    /// Sets or replaces custom items.
    public func setItems(_ items: [String: String]) async { await sender(.setItems(call: id, items: items)) }
    /// Deletes custom items.
    public func deleteItems(_ keys: [String]) async { await sender(.deleteItems(call: id, keys: keys)) }

    /// Waits until the call has ended and returns how it stands then.
    public func ended() async -> CallInfo {
        for await info in state.values where info.phase == .ended { return info }
        return state.current
    }

    /// Sends `message` about this call, unless the call has ended: then the server could only
    /// refuse it (a caller's media description after a quick decline used to be refused as
    /// `callAnswered` and counted among the server's refusals).
    private func sender(_ message: CallClientMessage) async {
        guard state.current.phase != .ended else { return }
        await transport(message)
    }

    private func update(_ change: (inout CallSettings) -> Void) async {
        let next = settings.withLock { settings in
            change(&settings)
            return settings
        }
        await sender(.settings(call: id, next))
    }

    /// Takes the server's view of the call and says what changed.
    func apply(_ info: CallInfo) {
        let old = state.current
        guard info != old else { return }
        state.set(info)
        if info.phase != old.phase { events.send(.phase(info.phase)) }
        let remote = isCaller ? (old.calleeSettings, info.calleeSettings) : (old.callerSettings, info.callerSettings)
        if remote.0 != remote.1 {
            remoteSettings.set(remote.1)
            events.send(.remoteSettings(remote.1))
        }
        if info.record.customItems != old.record.customItems {
            customItems.set(info.record.customItems)
            events.send(.customItems(info.record.customItems))
        }
        for gone in Set(info.reconnecting).subtracting(old.reconnecting).sorted() where gone != identity { events.send(.reconnecting(gone)) }
        for back in Set(old.reconnecting).subtracting(info.reconnecting).sorted() where back != identity { events.send(.reconnected(back)) }
        if let media = info.media, media != old.media { events.send(.media(media)) }
        if info.phase == .ended, old.phase != .ended {
            events.send(.ended(info.result ?? .connectionLost))
            state.finish()
            remoteSettings.finish()
            customItems.finish()
            events.finish()
        }
    }

    /// The connection is gone for good: the call is over for this device.
    func abandon(at now: SessionTime) {
        guard state.current.phase != .ended else { return }
        var info = state.current
        info.phase = .ended
        info.result = .connectionLost
        info.record.result = info.record.result ?? .connectionLost
        info.record.ended = info.record.ended ?? now
        apply(info)
    }

    public static func == (lhs: Call, rhs: Call) -> Bool { lhs === rhs }
    public func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }
    public var description: String { "call \(id)" }
}
