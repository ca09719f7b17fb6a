import ConferClient
import ConferSession
import Foundation
import Testing

/// A client given a token for the other endpoint says so before it connects, instead of
/// letting the server refuse it as a token for another room.
@Suite struct ClientTokenTests {
    /// An unsigned token for `room` (the client reads claims without checking the signature).
    func token(room: String) -> String {
        func part(_ json: String) -> String {
            Data(json.utf8).base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
                .replacingOccurrences(of: "=", with: "")
        }
        return part(#"{"alg":"HS256","typ":"JWT"}"#) + "." + part(#"{"sub":"alice","room":"\#(room)","role":"participant"}"#) + ".sig"
    }

    @Test func aRoomTokenIsNotACallToken() {
        let error = #expect(throws: CallClientError.self) {
            try CallClient(configuration: CallClientConfiguration(server: "http://127.0.0.1:7880", token: token(room: "standup"), device: "cli"))
        }
        #expect(error == .invalidConfiguration("the token admits to room standup, not to calls: mint one for calls (`confer token --calls`)"))
        #expect(throws: Never.self) {
            try CallClient(configuration: CallClientConfiguration(server: "http://127.0.0.1:7880", token: token(room: TokenClaims.callScope), device: "cli"))
        }
    }

    @Test func aCallTokenIsNotARoomToken() {
        let error = #expect(throws: MeetingClientError.self) {
            try MeetingClient(configuration: MeetingClientConfiguration(server: "http://127.0.0.1:7880", token: token(room: TokenClaims.callScope)))
        }
        #expect(error == .invalidConfiguration("the token is for calls, not for a room: mint one for the room (`confer token --room`)"))
        #expect(throws: Never.self) {
            try MeetingClient(configuration: MeetingClientConfiguration(server: "http://127.0.0.1:7880", token: token(room: "standup")))
        }
    }
}
