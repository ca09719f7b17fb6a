/// Every one-to-one call of one server as a value type: devices signing in and out, dials,
/// ringing on every device of the callee, answers, media set-up, hang-ups and the timers
/// around them. Each input returns the ``CallEffect``s to carry out, in order; time comes
/// in with each input, so every rule runs in virtual time.
///
/// A call's life: ringing (every signed-in device of the callee rings, and one that signs in
/// while it rings rings too) → accepted (the first device to answer wins; the others end
/// with ``CallEndResult/otherDeviceAccepted``) → connected (both sides report decoded media)
/// → ended. A side whose connection drops is `reconnecting` until it signs in again as the
/// same device, or the reconnection window closes the call with ``CallEndResult/connectionLost``.
public struct CallSwitchboard<Random: RandomNumberGenerator & Sendable>: Sendable {
    /// The timers and limits.
    public let rules: CallRules
    private var random: Random
    private var online: [CallDevice: Presence] = [:]
    private var deviceAt: [SessionAddress: CallDevice] = [:]
    private var known: Set<String> = []
    private var calls: [String: ActiveCall] = [:]
    private var callsOf: [String: Set<String>] = [:]
    private var endedResults: [String: CallEndResult] = [:]
    private var endedOrder: [String] = []
    private var endedNext = 0

    private struct Presence: Sendable {
        var address: SessionAddress
        var lastHeard: SessionTime
        /// The token it signed in with, or its last renewal; nil: not renewed.
        var token: TokenClaims?
    }

    /// One call in progress.
    private struct ActiveCall: Sendable {
        var record: CallRecord
        var callerDevice: CallDevice
        var calleeDevice: CallDevice?
        var ringing: Set<CallDevice> = []
        var lostToAnswer: Set<CallDevice> = []
        var connectionTimeout: Duration
        var ringDeadline: SessionTime?
        var connectDeadline: SessionTime?
        var callerSettings: CallSettings
        var calleeSettings: CallSettings
        var callerCodec: String?
        var callerMedia: MediaDescription?
        var calleeMedia: MediaDescription?
        var keys: (callerToCallee: [UInt8], calleeToCaller: [UInt8])?
        var mediaUp: Set<String> = []
        var lost: [String: SessionTime] = [:]

        func isParticipant(_ device: CallDevice) -> Bool { device == callerDevice || device == calleeDevice }

        var nextDeadline: SessionTime? {
            [ringDeadline, connectDeadline, lost.values.min()].compactMap { $0 }.min()
        }
    }

    /// A switchboard with `rules`, drawing call ids and keys from `random`.
    public init(rules: CallRules = CallRules(), random: Random) {
        self.rules = rules
        self.random = random
    }

    /// Users known from before this switchboard started (the call log's callers and
    /// callees), so that calling one of them while none of its devices is signed in fails as
    /// offline, not unknown.
    public mutating func rememberUsers(_ identities: some Sequence<String>) { known.formUnion(identities) }

    /// Calls in progress.
    public var activeCalls: Int { calls.count }
    /// Devices signed in.
    public var onlineDevices: Int { online.count }
    /// The device on a connection, if it signed in.
    public func device(at address: SessionAddress) -> CallDevice? { deviceAt[address] }
    /// A call in progress, as its record stands.
    public func record(of id: String) -> CallRecord? { calls[id]?.record }
    /// A call in progress as `device` is told it (the last ``CallInfo`` it was sent), for the
    /// devices kept up to date with it: the caller's, the answering one, those ringing, and
    /// those that lost the answer to another; nil for any other device.
    public func view(of id: String, for device: CallDevice) -> CallInfo? {
        guard let call = calls[id],
              call.isParticipant(device) || call.ringing.contains(device) || call.lostToAnswer.contains(device) else { return nil }
        return info(call, for: device)
    }

    /// The earliest instant ``tick(at:)`` has something to do.
    public var nextDeadline: SessionTime? {
        let keepalive = online.values.map(\.lastHeard).min().map { $0 + rules.keepaliveTimeout }
        let renewal = rules.refreshesTokens ? online.values.compactMap(\.token?.refreshTime).min() : nil
        return ([keepalive, renewal] + calls.values.map(\.nextDeadline)).compactMap { $0 }.min()
    }

    // MARK: - Devices

    /// A connection whose token verified signs in as `device`: it is welcomed, rings for
    /// calls to its user that are ringing, and resumes a call it was part of. A device of
    /// the same name signed in elsewhere is replaced. Its `token` (the claims that verified)
    /// is renewed halfway through its lifetime while it stays signed in; without one, none is.
    public mutating func signIn(_ device: CallDevice, token: TokenClaims? = nil, on address: SessionAddress,
                                at now: SessionTime) -> [CallEffect] {
        var effects: [CallEffect] = []
        if let previous = online[device], previous.address != address {
            deviceAt.removeValue(forKey: previous.address)
            effects.append(.end(previous.address, .duplicateIdentity))
        }
        known.insert(device.identity)
        online[device] = Presence(address: address, lastHeard: now, token: token)
        deviceAt[address] = device
        effects.append(.send(address, .welcome(identity: device.identity, device: device.device,
                                                keepaliveSeconds: Double(rules.keepaliveTimeout.sessionMilliseconds) / 3000,
                                                serverTime: now)))
        for id in (callsOf[device.identity] ?? []).sorted() {
            guard var call = calls[id] else { continue }
            if call.isParticipant(device) {
                let wasLost = call.lost.removeValue(forKey: device.identity) != nil
                calls[id] = call
                // Back within the window: both sides hear it; otherwise this device resynchronizes.
                effects += wasLost ? notify(id) : [.send(address, .call(info(call, for: device)))]
            } else if call.record.callee == device.identity, call.record.phase == .ringing {
                call.ringing.insert(device)
                calls[id] = call
                effects.append(.send(address, .incoming(info(call, for: device))))
            }
        }
        return effects
    }

    /// The connection on `address` closed (or went silent). A device ringing stops ringing;
    /// a side of a call starts its reconnection window.
    public mutating func connectionLost(_ address: SessionAddress, at now: SessionTime) -> [CallEffect] {
        guard let device = deviceAt.removeValue(forKey: address) else { return [] }
        if online[device]?.address == address { online.removeValue(forKey: device) }
        var effects: [CallEffect] = []
        for id in (callsOf[device.identity] ?? []).sorted() {
            guard var call = calls[id] else { continue }
            call.ringing.remove(device)
            if call.isParticipant(device) {
                call.lost[device.identity] = now + rules.reconnectWindow
                calls[id] = call
                effects += notify(id)
            } else {
                calls[id] = call
            }
        }
        return effects
    }

    // MARK: - Messages

    /// A decoded message from the signed-in connection `address` (`hello` and `log` are the
    /// driver's: the first signs in, the second reads the store).
    public mutating func handle(_ message: CallClientMessage, from address: SessionAddress, at now: SessionTime) -> [CallEffect] {
        guard let device = deviceAt[address] else {
            return [.send(address, .refused(action: message.typeName, ref: nil, call: message.callID, reason: .outOfOrder))]
        }
        online[device]?.lastHeard = now
        switch message {
        case .hello:
            return [.send(address, .refused(action: "hello", ref: nil, call: nil, reason: .outOfOrder))]
        case .ping(let sent):
            return [.send(address, .pong(sent: sent))]
        case .log:
            return []
        case .dial(let ref, let callee, let video, let items, let ringing, let connection, let codec):
            return dial(from: device, at: address, ref: ref, callee: callee, video: video, codec: codec, items: items ?? [:],
                        ringingTimeout: ringing, connectionTimeout: connection, now: now)
        default:
            break
        }
        guard let id = message.callID else { return [] }
        guard var call = calls[id], call.record.caller == device.identity || call.record.callee == device.identity else {
            guard endedResults[id] != nil, calls[id] == nil else { return [refusal(message, to: address, reason: .unknownCall)] }
            // A call that has just ended. An answer comes too late and is told so; anything
            // else crossed the end on the way (a caller's media description after a quick
            // decline, a hang-up from both sides at once) and is dropped: both sides already
            // have the end, and counting it as a refusal would only be noise.
            switch message {
            case .accept, .decline: return [refusal(message, to: address, reason: .callAnswered)]
            default: return []
            }
        }
        let isCaller = device.identity == call.record.caller
        switch message {
        case .accept:
            guard !isCaller else { return [refusal(message, to: address, reason: .unknownCall)] }
            guard call.record.phase == .ringing else { return [refusal(message, to: address, reason: .callAnswered)] }
            return accept(id, call: call, by: device, now: now)
        case .decline:
            guard !isCaller else { return [refusal(message, to: address, reason: .unknownCall)] }
            guard call.record.phase == .ringing else { return [refusal(message, to: address, reason: .callAnswered)] }
            return end(id, .declined, by: device.identity, at: now)
        case .end(_, let lost):
            if !isCaller, call.record.phase == .ringing { return end(id, .declined, by: device.identity, at: now) }
            guard call.isParticipant(device) else { return [refusal(message, to: address, reason: .callAnswered)] }
            let result: CallEndResult = lost ? .connectionLost : call.record.connected != nil ? .completed : isCaller ? .canceled : .declined
            return end(id, result, by: device.identity, at: now)
        case .media(_, let description):
            guard call.isParticipant(device) else { return [refusal(message, to: address, reason: .wrongCallState)] }
            guard description.isPlausible else { return [refusal(message, to: address, reason: .invalidParameters)] }
            if isCaller { call.callerMedia = description } else { call.calleeMedia = description }
            calls[id] = call
            return notify(id)
        case .mediaConnected:
            guard call.isParticipant(device), call.calleeDevice != nil else {
                return [refusal(message, to: address, reason: .wrongCallState)]
            }
            guard call.record.connected == nil, call.mediaUp.insert(device.identity).inserted else { return [] }
            if call.mediaUp.count == 2 {
                call.record.connected = now
                call.connectDeadline = nil
                calls[id] = call
                return [.record(call.record)] + notify(id)
            }
            calls[id] = call
            return []
        case .acceptFailed:
            guard device == call.calleeDevice, call.record.connected == nil else {
                return [refusal(message, to: address, reason: .wrongCallState)]
            }
            return end(id, .acceptFailed, by: device.identity, at: now)
        case .settings(_, let settings):
            guard call.isParticipant(device) else { return [refusal(message, to: address, reason: .wrongCallState)] }
            if isCaller { call.callerSettings = settings } else { call.calleeSettings = settings }
            calls[id] = call
            return notify(id)
        case .setItems(_, let items):
            guard call.isParticipant(device) || call.ringing.contains(device) else {
                return [refusal(message, to: address, reason: .wrongCallState)]
            }
            var merged = call.record.customItems
            merged.merge(items) { _, new in new }
            guard itemsAreValid(merged) else { return [refusal(message, to: address, reason: .invalidParameters)] }
            call.record.customItems = merged
            calls[id] = call
            return [.record(call.record)] + notify(id)
        case .deleteItems(_, let keys):
            guard call.isParticipant(device) || call.ringing.contains(device) else {
                return [refusal(message, to: address, reason: .wrongCallState)]
            }
            guard keys.count <= rules.maximumCustomItems else { return [refusal(message, to: address, reason: .invalidParameters)] }
            for key in keys { call.record.customItems.removeValue(forKey: key) }
            calls[id] = call
            return [.record(call.record)] + notify(id)
        case .hello, .ping, .dial, .log:
            return []
        }
    }

    /// Moves time on: tokens due are renewed, silent devices are signed out, and calls whose
    /// ringing, connection or reconnection ran out end.
    public mutating func tick(at now: SessionTime) -> [CallEffect] {
        var effects: [CallEffect] = []
        if rules.refreshesTokens {
            // Not for a device about to be signed out as silent, below.
            for (device, presence) in online.sorted(by: { $0.key.description < $1.key.description })
            where presence.lastHeard + rules.keepaliveTimeout > now {
                guard let token = presence.token, let due = token.refreshTime, due <= now else { continue }
                let renewed = token.refreshed(at: now)
                online[device]?.token = renewed
                effects.append(.refreshToken(presence.address, renewed))
            }
        }
        for (device, presence) in online.sorted(by: { $0.key.description < $1.key.description })
        where presence.lastHeard + rules.keepaliveTimeout <= now {
            effects.append(.end(presence.address, .timedOut))
            effects += connectionLost(presence.address, at: now)
            _ = device
        }
        for id in calls.keys.sorted() {
            guard let call = calls[id] else { continue }
            if let deadline = call.lost.values.min(), deadline <= now {
                effects += end(id, .connectionLost, by: nil, at: now)
            } else if let deadline = call.ringDeadline, deadline <= now {
                effects += end(id, .noAnswer, by: nil, at: now)
            } else if let deadline = call.connectDeadline, deadline <= now {
                effects += end(id, .timedOut, by: nil, at: now)
            }
        }
        return effects
    }

    /// The server stops: every call in progress ends (``CallEndResult/connectionLost``,
    /// ended by no one) and every connection closes with `serverShutdown`.
    public mutating func shutDown(at now: SessionTime) -> [CallEffect] {
        var effects: [CallEffect] = []
        for id in calls.keys.sorted() { effects += end(id, .connectionLost, by: nil, at: now) }
        for (address, _) in deviceAt.sorted(by: { $0.key.connection < $1.key.connection }) {
            effects.append(.end(address, .serverShutdown))
        }
        deviceAt.removeAll()
        online.removeAll()
        return effects
    }

    // MARK: - Steps

    private mutating func dial(from device: CallDevice, at address: SessionAddress, ref: UInt64, callee: String, video: Bool,
                               codec: String?, items: [String: String], ringingTimeout: Double?, connectionTimeout: Double?,
                               now: SessionTime) -> [CallEffect] {
        func refuse(_ reason: SessionRefusal, call: String? = nil) -> CallEffect {
            .send(address, .refused(action: "dial", ref: ref, call: call, reason: reason))
        }
        guard !callee.isEmpty, callee.utf8.count <= 256, itemsAreValid(items), codec.map(MediaDescription.videoCodecs.contains) ?? true,
              let ringing = timeout(ringingTimeout, default: rules.ringingTimeout),
              let connection = timeout(connectionTimeout, default: rules.connectionTimeout) else {
            return [refuse(.invalidParameters)]
        }
        guard callee != device.identity else { return [refuse(.selfCall)] }
        guard (callsOf[device.identity]?.count ?? 0) < rules.maximumCallsPerUser,
              (callsOf[callee]?.count ?? 0) < rules.maximumCallsPerUser else { return [refuse(.tooManyRequests)] }
        let id = newCallID()
        var record = CallRecord(id: id, caller: device.identity, callerDevice: device.device, callee: callee, video: video,
                                started: now, customItems: items)
        let devices = online.keys.filter { $0.identity == callee }.sorted { $0.device < $1.device }
        let busy = !rules.ringsThroughCalls && (callsOf[callee] ?? []).contains { calls[$0]?.record.accepted != nil }
        guard !devices.isEmpty, !busy else {
            let reason: SessionRefusal = busy ? .calleeBusy : known.contains(callee) ? .calleeOffline : .calleeUnknown
            record.result = .dialFailed
            record.ended = now
            record.failure = reason
            remember(id, .dialFailed)
            return [.record(record), refuse(reason, call: id)]
        }
        var call = ActiveCall(record: record, callerDevice: device, connectionTimeout: connection, ringDeadline: now + ringing,
                              callerSettings: CallSettings(video: video), calleeSettings: CallSettings(video: video))
        // A voice call sends no video, whatever the dial said.
        call.callerCodec = video ? codec : nil
        call.ringing = Set(devices)
        calls[id] = call
        callsOf[device.identity, default: []].insert(id)
        callsOf[callee, default: []].insert(id)
        var effects: [CallEffect] = [.record(record), .send(address, .dialed(ref: ref, call: info(call, for: device)))]
        for ringingDevice in devices {
            guard let presence = online[ringingDevice] else { continue }
            effects.append(.send(presence.address, .incoming(info(call, for: ringingDevice))))
        }
        return effects
    }

    private mutating func accept(_ id: String, call original: ActiveCall, by device: CallDevice, now: SessionTime) -> [CallEffect] {
        var call = original
        call.calleeDevice = device
        call.record.accepted = now
        call.record.acceptedDevice = device.device
        call.ringDeadline = nil
        call.connectDeadline = now + call.connectionTimeout
        call.keys = (randomKey(), randomKey())
        call.lostToAnswer = call.ringing.subtracting([device])
        call.ringing = []
        calls[id] = call
        var effects: [CallEffect] = [.record(call.record)]
        effects += notify(id)
        // The devices that rang and lost the answer hear it once, then nothing more of this call.
        call.lostToAnswer = []
        calls[id] = call
        return effects
    }

    private mutating func end(_ id: String, _ result: CallEndResult, by identity: String?, at now: SessionTime) -> [CallEffect] {
        guard var call = calls[id] else { return [] }
        call.record.result = result
        call.record.ended = now
        call.record.endedBy = identity
        call.ringDeadline = nil
        call.connectDeadline = nil
        call.lost = [:]
        calls[id] = call
        let effects: [CallEffect] = [.record(call.record)] + notify(id)
        calls.removeValue(forKey: id)
        callsOf[call.record.caller]?.remove(id)
        callsOf[call.record.callee]?.remove(id)
        if callsOf[call.record.caller]?.isEmpty == true { callsOf.removeValue(forKey: call.record.caller) }
        if callsOf[call.record.callee]?.isEmpty == true { callsOf.removeValue(forKey: call.record.callee) }
        remember(id, result)
        return effects
    }

    /// Tells every device that follows the call how it stands now.
    private func notify(_ id: String) -> [CallEffect] {
        guard let call = calls[id] else { return [] }
        var devices = [call.callerDevice]
        if let callee = call.calleeDevice { devices.append(callee) }
        devices += call.ringing.sorted { $0.device < $1.device }
        devices += call.lostToAnswer.sorted { $0.device < $1.device }
        return devices.compactMap { device in
            online[device].map { .send($0.address, .call(info(call, for: device))) }
        }
    }

    private func info(_ call: ActiveCall, for device: CallDevice) -> CallInfo {
        var phase = call.record.phase
        var result = call.record.result
        if result == nil, call.calleeDevice != nil, device.identity == call.record.callee, device != call.calleeDevice {
            phase = .ended
            result = .otherDeviceAccepted
        }
        var media: CallMedia?
        if result == nil, let keys = call.keys, let callerMedia = call.callerMedia, let calleeMedia = call.calleeMedia {
            if device == call.callerDevice {
                media = CallMedia(peer: calleeMedia, slot: 1, sendKey: keys.callerToCallee, receiveKey: keys.calleeToCaller)
            } else if device == call.calleeDevice {
                media = CallMedia(peer: callerMedia, slot: 2, sendKey: keys.calleeToCaller, receiveKey: keys.callerToCallee)
            }
        }
        return CallInfo(record: call.record, phase: phase, result: result, callerSettings: call.callerSettings,
                        calleeSettings: call.calleeSettings, reconnecting: call.lost.keys.sorted(), media: media, callerCodec: call.callerCodec)
    }

    private func refusal(_ message: CallClientMessage, to address: SessionAddress, reason: SessionRefusal) -> CallEffect {
        .send(address, .refused(action: message.typeName, ref: nil, call: message.callID.map { String($0.prefix(64)) }, reason: reason))
    }

    private func timeout(_ seconds: Double?, default value: Duration) -> Duration? {
        guard let seconds else { return value }
        let milliseconds = seconds * 1000
        guard milliseconds.isFinite, milliseconds >= 1, milliseconds <= Double(rules.maximumTimeout.sessionMilliseconds) else { return nil }
        return .milliseconds(Int64(milliseconds))
    }

    private func itemsAreValid(_ items: [String: String]) -> Bool {
        items.count <= rules.maximumCustomItems
            && items.allSatisfy { !$0.key.isEmpty && $0.key.utf8.count <= rules.maximumItemKeyBytes && $0.value.utf8.count <= rules.maximumItemValueBytes }
    }

    private mutating func newCallID() -> String {
        let digits = Array("0123456789abcdef")
        return String((0 ..< 24).map { _ in digits[Int(random.next() % 16)] })
    }

    private mutating func randomKey() -> [UInt8] {
        (0 ..< MediaGrant.keyLength).map { _ in UInt8.random(in: 0 ... 255, using: &random) }
    }

    /// Keeps the last results in a ring, so memory stays bounded however many calls end.
    private mutating func remember(_ id: String, _ result: CallEndResult) {
        let capacity = max(1, rules.rememberedEndedCalls)
        if endedOrder.count < capacity {
            endedOrder.append(id)
        } else {
            endedResults.removeValue(forKey: endedOrder[endedNext])
            endedOrder[endedNext] = id
            endedNext = (endedNext + 1) % capacity
        }
        endedResults[id] = result
    }
}
