/// ConferSession: the session layer's rules as value types, with no I/O and no clock of
/// their own.
///
/// - Room/: ``RoomState`` — one room's members, host, join requests, device requests, chat,
///   lifecycle timers, the kicks it remembers and the administrator's ``RoomForward``; every
///   input is a ``ClientRequest`` (or a tick, a lost connection, an admin action) at a
///   ``SessionTime``, and every output a ``RoomEffect``.
/// - Join/, Devices/, Chat/: the pieces a room keeps (``JoinRequest``, ``DeviceRequest``,
///   ``ChatMessage`` and its bounded history).
/// - Connection/: a member's ``ConnectionState`` and ``ConnectionStateMachine`` (reconnection
///   with backoff inside a grace window), and the one ``DisconnectReason``.
/// - Tokens/: what a token claims (``TokenClaims``), the checks made on it and when a
///   connected member's is renewed; signing lives in ConferTokens.
/// - Media/: what an approved member is given to send and receive (``MediaGrant``).
/// - Protocol/: the wire vocabulary — ``ClientMessage`` and ``ServerMessage`` in a versioned
///   envelope, decoded by ``SignalCodec`` with a size cap and typed errors.
/// - Stats/: ``ConnectInfo``, the live figures a member reports.
/// - Console/: ``MeetingAction`` and ``CallAction``, what a person types to a meeting or a
///   call (`confer host/join/call --commands`, or an app's own console), read from a
///   ``ConsoleLine`` and written back by each action's `line`.
///
/// Knows nothing of pixels or sockets: the server drives ``RoomState`` on the wall clock,
/// tests and `confer meeting` drive it in virtual time.
public enum ConferSessionModule {}
