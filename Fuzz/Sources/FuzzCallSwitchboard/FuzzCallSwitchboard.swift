import ConferSession
import FuzzSupport
import FuzzTraffic

/// Drives one call switchboard with whatever the input says: each line is
/// `DEVICE TIME-STEP [JSON|lost]`, the device (0–7) choosing who acts (users a, b, c with
/// several devices each), the step moving virtual time, the JSON a call message (a bad one
/// is skipped, as the server refuses it before the switchboard); a line without a message
/// signs the device in anew. `{"dial":…}` and `{"accept":…}` may name a call by `#N`, the
/// N-th call placed. After every input the rules must hold: no device on two connections,
/// every ended call logged with a result, at most one answering device, bounded state; and
/// what each signed-in device was last told of a call is the call as it stands for it; a
/// renewed token goes only to a device signed in. An input of odd length runs the server
/// that rings users through their calls, one of even length the one that refuses them as busy.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    var rules = CallRules()
    rules.maximumCallsPerUser = 3
    rules.rememberedEndedCalls = 4
    // Both answers to a dial for a user in a call: refused as busy, or ringing through.
    rules.ringsThroughCalls = size % 2 == 1
    var now = SessionTime(milliseconds: 1_000_000)
    var board = CallSwitchboard(rules: rules, random: SeededGenerator(seed: 3))
    let devices = [("a", "1"), ("a", "2"), ("b", "1"), ("b", "2"), ("b", "3"), ("c", "1"), ("c", "2"), ("a", "1")]
    var connection: UInt64 = 0
    var addresses: [SessionAddress?] = Array(repeating: nil, count: devices.count)
    var placed: [String] = []
    var log: [String: CallRecord] = [:]
    // What each connection was last told of each call.
    var told: [SessionAddress: [String: CallInfo]] = [:]
    let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    func apply(_ effects: [CallEffect]) {
        for effect in effects {
            switch effect {
            case .record(let record):
                if let previous = log[record.id] {
                    precondition(previous.result == nil, "a call changed after it ended")
                    precondition(previous.started == record.started && previous.caller == record.caller, "a call's identity changed")
                }
                log[record.id] = record
            case .send(let address, .dialed(_, let info)):
                placed.append(info.id)
                told[address, default: [:]][info.id] = info
            case .send(let address, .incoming(let info)), .send(let address, .call(let info)):
                told[address, default: [:]][info.id] = info
            case .refreshToken(let address, let claims):
                precondition(claims.identity == address.identity && board.device(at: address) != nil,
                             "a renewed token for a device not signed in")
            case .send, .end:
                break
            }
        }
    }
    for line in text.split(separator: "\n").prefix(200) {
        let parts = line.split(separator: " ", maxSplits: 2)
        guard parts.count >= 2, let who = Int(parts[0]), devices.indices.contains(who), let step = Int(parts[1]) else { continue }
        now = now + .milliseconds(Int64(min(max(step, 0), 120_000)))
        apply(board.tick(at: now))
        let device = CallDevice(identity: devices[who].0, device: devices[who].1)
        if parts.count == 2 || addresses[who] == nil {
            connection += 1
            let address = SessionAddress(identity: device.identity, connection: connection)
            addresses[who] = address
            // A 20 s token, renewed every 10 s while the device stays.
            apply(board.signIn(device, token: TokenClaims(callsFor: device.identity, notBefore: now, lifetime: .seconds(20)),
                               on: address, at: now))
        } else if let address = addresses[who] {
            if parts[2] == "lost" {
                apply(board.connectionLost(address, at: now))
                addresses[who] = nil
            } else {
                var json = String(parts[2])
                for (index, id) in placed.enumerated().reversed() { json = json.replacing("#\(index)", with: id) }
                if let message = try? SignalCodec.decodeCallClient(Array(json.utf8)) { apply(board.handle(message, from: address, at: now)) }
            }
        }
        precondition(board.activeCalls <= 3 * 3, "calls unbounded")
        for case let address? in addresses {
            guard let device = board.device(at: address) else { continue }
            for id in placed {
                guard let expected = board.view(of: id, for: device) else { continue }
                require(told[address]?[id] == expected,
                        "\(device) was told \(String(describing: told[address]?[id])) of \(id), which stands as \(expected)")
            }
        }
        for id in placed {
            if let record = board.record(of: id) {
                precondition(record.result == nil, "an ended call is still active")
                precondition(log[id] == record, "an active call's record was not written as it stands")
            } else if let logged = log[id] {
                precondition(logged.result != nil, "a call left the switchboard without a result")
            }
        }
    }
    // An hour of silence: every device is signed out, and a minute later every call is over.
    apply(board.tick(at: now + .seconds(3600)))
    apply(board.tick(at: now + .seconds(3660)))
    precondition(board.onlineDevices == 0 && board.activeCalls == 0, "a call or a device outlived an hour of silence")
    for id in placed { precondition(log[id]?.result != nil, "a placed call has no result in the log") }
    return 0
}

@_cdecl("FuzzCallSwitchboard_main")
func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runLibFuzzer(argc, argv) { data, size in fuzz(data, size) }
}
