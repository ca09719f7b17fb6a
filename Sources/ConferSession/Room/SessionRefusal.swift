/// Why the server refused a request. A refusal answers one request and leaves the session
/// (and every other member's) as it was, except where the request was the join itself.
public enum SessionRefusal: String, Sendable, Codable, CaseIterable, Hashable, Error {
    // Tokens, checked before anything else.
    /// The token's signature does not verify, or it is not a token at all.
    case invalidToken
    /// The token's `exp` has passed.
    case tokenExpired
    /// The token's `nbf` has not come yet.
    case tokenNotYetValid
    /// The token is for another room than the one asked for.
    case wrongRoom

    // Joining.
    /// The room is closed (or closing).
    case roomClosed
    /// The room already has as many sending members as its limit allows.
    case roomFull
    /// A host token joined a room whose host is someone else.
    case hostAlreadyPresent
    /// Too many join requests are waiting in this room.
    case tooManyRequests
    /// The identity was kicked from this room, and the token dates from before the kick: a
    /// kicked member comes back only with a token minted after it.
    case kicked

    // Acting.
    /// Only the host may do this.
    case notHost
    /// The session is not (or no longer) a member of the room: it has not joined, was
    /// replaced, or is still waiting for approval.
    case notAMember
    /// No such member in the room.
    case unknownMember
    /// No such pending request (join request, application or device request).
    case unknownRequest
    /// The request does not apply to this member's role (an observer asking for a device,
    /// a participant applying to be one).
    case wrongRole
    /// The host cannot do this to itself (kick itself, transfer to itself, ask itself for a device).
    case notToSelf
    /// The message is empty or longer than a room message may be.
    case invalidMessage
    /// The member has not yet answered the host's request for that device: it is asked once.
    case alreadyRequested
    /// The member's device is on already: there is nothing to ask for.
    case deviceAlreadyOn
    /// The member's connection has dropped and it is reconnecting: the host role goes only
    /// to a member who is there, or the room would have no host compositing until it returns.
    case memberOffline

    // Calls.
    /// No such call, or not one this session may act on: it is between other users.
    case unknownCall
    /// The callee is not a user this server has seen.
    case calleeUnknown
    /// The callee has no device signed in.
    case calleeOffline
    /// The callee is in another call that was answered, and the server does not ring a
    /// user through one (``CallRules/ringsThroughCalls``).
    case calleeBusy
    /// A call to oneself.
    case selfCall
    /// A dial or a call message with fields out of range (identity, timeouts, custom items).
    case invalidParameters
    /// The call was already answered (by this or another device), or has ended.
    case callAnswered
    /// The call is not in a state where this can be done (ending a call not yet accepted
    /// from a ringing device, reporting media before accepting).
    case wrongCallState

    // Protocol.
    /// The message is not valid JSON of a known shape.
    case malformedMessage
    /// The message is larger than the size cap.
    case messageTooLarge
    /// The message names a type this server does not know.
    case unknownMessageType
    /// The envelope's protocol version is not one this server speaks.
    case unsupportedVersion
    /// The message came before the session joined, or a second join on one connection.
    case outOfOrder
    /// The session sends faster than the server accepts.
    case rateLimited
}

extension SessionRefusal {
    /// What the refusal means for a person, and what to do about it where something can be
    /// done: the sentence a client prints beside the code.
    public var explanation: String {
        switch self {
        case .invalidToken: "the token does not verify: it was not minted with this server's secret, or is not a token"
        case .tokenExpired: "the token has expired: mint a new one"
        case .tokenNotYetValid: "the token is not valid yet: check the clocks, or mint one valid from now"
        case .wrongRoom: "the token is for another room: mint one for this room"
        case .roomClosed: "the room is closed"
        case .roomFull: "the room has as many sending members as it allows"
        case .hostAlreadyPresent: "someone else hosts this room"
        case .tooManyRequests: "too many join requests are waiting in this room: try again later"
        case .kicked: "this identity was kicked from the room, and the token dates from before the kick: only a token minted since admits it"
        case .notHost: "only the host may do this"
        case .notAMember: "this session is not a member of the room (not admitted yet, or replaced)"
        case .unknownMember: "no such member in the room"
        case .unknownRequest: "no such request is waiting"
        case .alreadyRequested: "the member has that device request open already: wait for the answer, or for it to expire"
        case .deviceAlreadyOn: "the member's device is on already"
        case .memberOffline: "the member is reconnecting: try again once it is back"
        case .wrongRole: "this role cannot do that"
        case .notToSelf: "the host cannot do this to itself"
        case .invalidMessage: "the message is empty or too long"
        case .unknownCall: "no such call for this user"
        case .calleeUnknown: "nobody of that name has signed in to this server: check the name"
        case .calleeOffline: "the callee has no device signed in: try again later"
        case .calleeBusy: "the callee is in another call: try again later"
        case .selfCall: "a call to oneself"
        case .invalidParameters: "a field of the request is out of range"
        case .callAnswered: "the call was already answered, or has ended"
        case .wrongCallState: "the call is not in a state where this can be done"
        case .malformedMessage: "the server could not read the message"
        case .messageTooLarge: "the message is larger than the server accepts"
        case .unknownMessageType: "the server does not know the message's type (a newer client?)"
        case .unsupportedVersion: "the server speaks another protocol version: update the client or the server"
        case .outOfOrder: "the message came out of order (before joining, or a second join)"
        case .rateLimited: "the session sent faster than the server accepts"
        }
    }
}
