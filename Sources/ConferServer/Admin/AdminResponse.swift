import ConferSession
import Foundation
import Hummingbird

/// JSON bodies for the admin API: a value, or `{"error": CODE, "message": TEXT}`.
enum AdminResponse {
    static func json(_ value: some Encodable, status: HTTPResponse.Status = .ok) -> Response {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let data = (try? encoder.encode(value)) ?? Data("{}".utf8)
        return Response(status: status, headers: [.contentType: "application/json"], body: .init(byteBuffer: ByteBuffer(bytes: data)))
    }

    static func error(_ status: HTTPResponse.Status, _ message: String, code: String? = nil) -> Response {
        json(["error": code ?? status.reasonPhrase, "message": message], status: status)
    }

    /// The HTTP status and message for a refusal.
    static func refused(_ refusal: SessionRefusal) -> Response {
        switch refusal {
        case .unknownRequest: error(.notFound, "no such room", code: refusal.rawValue)
        case .unknownMember: error(.notFound, "no such member in the room", code: refusal.rawValue)
        case .outOfOrder: error(.conflict, "the room exists already", code: refusal.rawValue)
        case .roomFull, .wrongRole: error(.conflict, "the role cannot change that way (\(refusal.rawValue))", code: refusal.rawValue)
        case .roomClosed: error(.gone, "the room is closed", code: refusal.rawValue)
        case .memberOffline: error(.conflict, refusal.explanation, code: refusal.rawValue)
        default: error(.badRequest, refusal.rawValue, code: refusal.rawValue)
        }
    }
}
