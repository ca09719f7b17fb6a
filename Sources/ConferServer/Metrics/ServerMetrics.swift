import ConferSession
import Metrics
public import Prometheus

/// The server's counters and gauges, made through swift-metrics with a Prometheus factory
/// of its own (not the process-wide bootstrap, so servers in one test process stay apart).
public struct ServerMetrics: Sendable {
    /// The registry `/metrics` prints.
    public let registry: PrometheusCollectorRegistry
    private let rooms: Metrics.Gauge
    private let members: Metrics.Gauge
    private let connections: Metrics.Gauge
    private let roomWatchers: Metrics.Gauge
    private let watchUpdates: Metrics.Counter
    private let joins: Metrics.Counter
    private let messages: Metrics.Counter
    private let malformed: Metrics.Counter
    private let refusals: [SessionRefusal: Metrics.Counter]
    private let disconnects: [DisconnectReason: Metrics.Counter]
    private let activeCalls: Metrics.Gauge
    private let devices: Metrics.Gauge
    private let dials: Metrics.Counter
    private let callResults: [CallEndResult: Metrics.Counter]
    private let callLogFailures: Metrics.Counter
    private let stunAnswers: [String: Metrics.Counter]

    /// Metrics in a new registry.
    public init() {
        let registry = PrometheusCollectorRegistry()
        let factory = PrometheusMetricsFactory(registry: registry)
        self.registry = registry
        rooms = Metrics.Gauge(label: "confer_rooms", factory: factory)
        members = Metrics.Gauge(label: "confer_members", factory: factory)
        connections = Metrics.Gauge(label: "confer_connections", factory: factory)
        roomWatchers = Metrics.Gauge(label: "confer_room_watchers", factory: factory)
        watchUpdates = Metrics.Counter(label: "confer_room_watch_updates_total", factory: factory)
        joins = Metrics.Counter(label: "confer_joins_total", factory: factory)
        messages = Metrics.Counter(label: "confer_messages_total", factory: factory)
        malformed = Metrics.Counter(label: "confer_bad_messages_total", factory: factory)
        refusals = Dictionary(uniqueKeysWithValues: SessionRefusal.allCases.map {
            ($0, Metrics.Counter(label: "confer_refusals_total", dimensions: [("reason", $0.rawValue)], factory: factory))
        })
        disconnects = Dictionary(uniqueKeysWithValues: DisconnectReason.allCases.map {
            ($0, Metrics.Counter(label: "confer_disconnects_total", dimensions: [("reason", $0.rawValue)], factory: factory))
        })
        activeCalls = Metrics.Gauge(label: "confer_calls_active", factory: factory)
        devices = Metrics.Gauge(label: "confer_call_devices", factory: factory)
        dials = Metrics.Counter(label: "confer_calls_dialed_total", factory: factory)
        callResults = Dictionary(uniqueKeysWithValues: CallEndResult.allCases.map {
            ($0, Metrics.Counter(label: "confer_calls_ended_total", dimensions: [("result", $0.rawValue)], factory: factory))
        })
        callLogFailures = Metrics.Counter(label: "confer_call_log_failures_total", factory: factory)
        stunAnswers = Dictionary(uniqueKeysWithValues: ["answered", "refused", "dropped"].map {
            ($0, Metrics.Counter(label: "confer_stun_requests_total", dimensions: [("outcome", $0)], factory: factory))
        })
    }

    /// Counts what the STUN responder did with one datagram: `answered`, `refused` or `dropped`.
    func stun(_ outcome: String) { stunAnswers[outcome]?.increment() }

    func callDialed() { dials.increment() }
    func callEnded(_ result: CallEndResult) { callResults[result]?.increment() }
    func callLogFailed() { callLogFailures.increment() }
    func record(calls: Int, devices: Int) {
        activeCalls.record(calls)
        self.devices.record(devices)
    }

    func joined() { joins.increment() }
    func messageAccepted() { messages.increment() }
    func badMessage() { malformed.increment() }
    func refused(_ reason: SessionRefusal) { refusals[reason]?.increment() }
    func ended(_ reason: DisconnectReason) { disconnects[reason]?.increment() }
    func record(rooms: Int, members: Int, connections: Int) {
        self.rooms.record(rooms)
        self.members.record(members)
        self.connections.record(connections)
    }

    func record(watchers: Int) { roomWatchers.record(watchers) }
    func watchUpdateSent() { watchUpdates.increment() }

    /// The Prometheus text exposition.
    public func exposition() -> [UInt8] { registry.emitToBuffer() }
}
