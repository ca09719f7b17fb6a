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

/// The WebSocket client reads a URL's host up to its first colon, so a server named by an
/// IPv6 address is refused before any connection, saying what to name it by instead.
@Suite struct ClientIPv6URLTests {
    let token = ClientTokenTests().token(room: "standup")
    let callToken = ClientTokenTests().token(room: TokenClaims.callScope)

    @Test func aMeetingClientSaysWhatToUseForAnIPv6Server() {
        let error = #expect(throws: MeetingClientError.self) {
            try MeetingClient(configuration: MeetingClientConfiguration(server: "http://[::1]:7880", token: token))
        }
        #expect(error == .invalidConfiguration("the WebSocket client cannot connect to a server named by an IPv6 address ([::1]): "
                                               + "name it by a host name that resolves to that address, or by an IPv4 address"))
        let other = #expect(throws: MeetingClientError.self) {
            try MeetingClient(configuration: MeetingClientConfiguration(server: "wss://[2001:db8::5]/", token: token))
        }
        #expect(other == .invalidConfiguration("the WebSocket client cannot connect to a server named by an IPv6 address ([2001:db8::5]): "
                                               + "name it by a host name that resolves to that address, or by an IPv4 address"))
        #expect(throws: Never.self) { try MeetingClient(configuration: MeetingClientConfiguration(server: "http://localhost:7880", token: token)) }
    }

    @Test func aCallClientAndARoomWatchSayItToo() {
        let call = #expect(throws: CallClientError.self) {
            try CallClient(configuration: CallClientConfiguration(server: "ws://[::1]:9/", token: callToken, device: "cli"))
        }
        #expect(call?.description.contains("IPv6 address ([::1])") == true)
        let watch = #expect(throws: RoomWatchError.self) { try RoomWatch(server: "http://[fe80::1]:80", adminToken: "a", room: "standup") }
        #expect(watch?.description.contains("IPv6 address ([fe80::1])") == true)
        // The admin API's own HTTP connection brackets the host itself: not refused.
        #expect(throws: Never.self) { try AdminClient(server: "http://[::1]:7880", adminToken: "a") }
    }
}
