/// ConferServer: the signaling server behind `confer serve`.
///
/// - ``SignalServer`` assembles the Hummingbird application (one `buildApplication`, so
///   tests start the real server on port 0): the WebSockets at `/v1/signal` and `/v1/calls`,
///   the admin API under `/v1/rooms`, `/metrics` and `/healthz`, TLS when given a certificate.
/// - Hub/: ``RoomHub``, the actor that owns every room (through a ``RoomStore``) and drives
///   ConferSession's ``RoomState`` on the wall clock, routing effects to connections.
/// - Signal/: one member connection — token first, then decode, forward, write — and
///   ``WebSocketRoute``, which picks a WebSocket from the upgrade's path (no Hummingbird router:
///   its context held every connection for good).
/// - Calls/: ``CallHub`` (one-to-one calls on ConferSession's ``CallSwitchboard``), one
///   device's connection, and ``CallLog``, the call log in SQLite through GRDB.
/// - Admin/: the bearer-token HTTP API, and the watch WebSocket that pushes a room's state
///   (``RoomWatchConnection``).
/// - Metrics/: counters and gauges through swift-metrics, exposed by swift-prometheus.
public enum ConferServerModule {}
