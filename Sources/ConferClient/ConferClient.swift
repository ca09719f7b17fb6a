/// ConferClient: a member's side of a meeting.
///
/// - Meeting/: ``MeetingClient`` — one actor per meeting: joins through the signaling server,
///   keeps the room in step, reconnects within the grace window, offers the room's actions.
/// - Media/: ``MeetingMedia``, the member's media behind a meeting.
/// - Call/: ``CallClient`` and ``Call``, one-to-one calls, and their media.
/// - Admin/: ``AdminClient``, the admin API typed (rooms, members, roles, messages), and
///   ``RoomWatch``, an administrator's live view of a room (the server pushes it).
/// - Signal/: one WebSocket to the server (``SignalLink``).
/// - Observation/: ``ObservedValue`` (current value first, then changes) and
///   ``EventBroadcast``, the async sequences apps observe.
public enum ConferClientModule {}
