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
    /// The host cannot do this to itself (kick itself, transfer to itself).
    case notToSelf
    /// The message is empty or longer than a room message may be.
    case invalidMessage

    // Calls.
    /// No such call, or not one this session may act on: it is between other users.
    case unknownCall
    /// The callee is not a user this server has seen.
    case calleeUnknown
    /// The callee has no device signed in.
    case calleeOffline
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
