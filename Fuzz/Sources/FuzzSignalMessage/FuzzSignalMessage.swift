import ConferSession
import FuzzSupport

/// Feeds arbitrary bytes to the signaling decoder, as both sides of meetings and calls read them: each must give
/// a message or a typed `SignalDecodeError`, never crash; what it accepts must encode and
/// decode back to the same message.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = UnsafeBufferPointer(start: data, count: size)
    do {
        let message = try SignalCodec.decodeClient(bytes)
        let again = try SignalCodec.decodeClient(SignalCodec.encode(message))
        precondition(again == message, "a client message did not survive encode and decode: \(message) became \(again)")
    } catch {
        _ = error.refusal
    }
    do {
        let message = try SignalCodec.decodeServer(bytes)
        let again = try SignalCodec.decodeServer(SignalCodec.encode(message))
        precondition(again == message, "a server message did not survive encode and decode")
    } catch {
        _ = error.refusal
    }
    do {
        let message = try SignalCodec.decodeCallClient(bytes)
        let again = try SignalCodec.decodeCallClient(SignalCodec.encode(message))
        precondition(again == message, "a call client message did not survive encode and decode")
    } catch {
        _ = error.refusal
    }
    do {
        let message = try SignalCodec.decodeCallServer(bytes)
        let again = try SignalCodec.decodeCallServer(SignalCodec.encode(message))
        precondition(again == message, "a call server message did not survive encode and decode")
    } catch {
        _ = error.refusal
    }
    return 0
}

@_cdecl("FuzzSignalMessage_main")
func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runLibFuzzer(argc, argv) { data, size in fuzz(data, size) }
}
