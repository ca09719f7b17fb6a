#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Why a signaling message could not be read. Each maps to the refusal the connection
/// answers with.
public enum SignalDecodeError: Error, Sendable, Hashable {
    /// Larger than the cap (the size it had).
    case tooLarge(Int)
    /// Not JSON, or not an envelope.
    case malformed
    /// An envelope of another protocol version.
    case unsupportedVersion(Int)
    /// A message type this side does not know.
    case unknownType(String)
    /// A known type whose fields are wrong.
    case invalidFields(String)

    /// The refusal the connection answers with.
    public var refusal: SessionRefusal {
        switch self {
        case .tooLarge: .messageTooLarge
        case .malformed, .invalidFields: .malformedMessage
        case .unsupportedVersion: .unsupportedVersion
        case .unknownType: .unknownMessageType
        }
    }
}

/// The signaling wire format: one JSON object per WebSocket text message,
/// `{"v": 1, "m": {"TYPE": {FIELDS}}}`, at most ``maximumMessageBytes``.
public enum SignalCodec {
    /// The protocol version this build speaks.
    public static let protocolVersion = 1
    /// The largest message either side accepts, in bytes.
    public static let maximumMessageBytes = 64 * 1024

    private struct Envelope<Message: Codable>: Codable {
        var v: Int
        var m: Message
    }

    private struct Header: Decodable {
        var v: Int
    }

    private struct Probe: Decodable {
        var m: [String: Skipped]
    }

    /// Decodes any JSON value and keeps nothing.
    private struct Skipped: Decodable {
        init(from decoder: any Decoder) throws {}
    }

    /// The JSON text of a client message.
    public static func encode(_ message: ClientMessage) -> [UInt8] { encodeEnvelope(message) }

    /// The JSON text of a server message.
    public static func encode(_ message: ServerMessage) -> [UInt8] { encodeEnvelope(message) }

    /// The JSON text of a call client message.
    public static func encode(_ message: CallClientMessage) -> [UInt8] { encodeEnvelope(message) }

    /// The JSON text of a call server message.
    public static func encode(_ message: CallServerMessage) -> [UInt8] { encodeEnvelope(message) }

    /// Reads a call client message.
    public static func decodeCallClient(_ bytes: some Collection<UInt8>) throws(SignalDecodeError) -> CallClientMessage {
        try decode(bytes, as: CallClientMessage.self, names: CallClientMessage.typeNames)
    }

    /// Reads a call server message.
    public static func decodeCallServer(_ bytes: some Collection<UInt8>) throws(SignalDecodeError) -> CallServerMessage {
        try decode(bytes, as: CallServerMessage.self, names: CallServerMessage.typeNames)
    }

    /// Reads a client message.
    public static func decodeClient(_ bytes: some Collection<UInt8>) throws(SignalDecodeError) -> ClientMessage {
        try decode(bytes, as: ClientMessage.self, names: ClientMessage.typeNames)
    }

    /// Reads a server message.
    public static func decodeServer(_ bytes: some Collection<UInt8>) throws(SignalDecodeError) -> ServerMessage {
        try decode(bytes, as: ServerMessage.self, names: ServerMessage.typeNames)
    }

    private static func encodeEnvelope<M: Codable>(_ message: M) -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        // Every message type is made of strings, numbers, booleans and arrays of them:
        // encoding cannot fail.
        guard let data = try? encoder.encode(Envelope(v: protocolVersion, m: message)) else { return [] }
        return Array(data)
    }

    private static func decode<M: Codable>(_ bytes: some Collection<UInt8>, as type: M.Type,
                                           names: Set<String>) throws(SignalDecodeError) -> M {
        guard bytes.count <= maximumMessageBytes else { throw .tooLarge(bytes.count) }
        let data = Data(bytes)
        let decoder = JSONDecoder()
        guard let header = try? decoder.decode(Header.self, from: data) else { throw .malformed }
        guard header.v == protocolVersion else { throw .unsupportedVersion(header.v) }
        if let envelope = try? decoder.decode(Envelope<M>.self, from: data) { return envelope.m }
        guard let probe = try? decoder.decode(Probe.self, from: data), probe.m.count == 1, let name = probe.m.keys.first else {
            throw .malformed
        }
        guard names.contains(name) else { throw .unknownType(String(name.prefix(64))) }
        throw .invalidFields(name)
    }
}
