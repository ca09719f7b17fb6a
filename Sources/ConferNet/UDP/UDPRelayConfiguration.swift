public import ConferMedia

/// What a ``UDPRelay`` listens on, where it forwards, and what network it imitates.
public struct UDPRelayConfiguration: Sendable {
    /// The address the relay binds (port 0 picks a free one; see ``UDPRelay/run(onReady:)``).
    public var listen: UDPAddress
    /// Where datagrams from senders go.
    public var destination: UDPAddress
    /// The path from senders to ``destination`` (media).
    public var forward: NetworkConditions
    /// The path from ``destination`` back to the last sender (RTCP feedback).
    public var backward: NetworkConditions
    /// A trace driving the forward path instead of its random model, if any.
    public var trace: NetworkTrace?
    /// Seeds both paths' randomness.
    public var seed: UInt64
    /// How long to run; nil for until cancelled.
    public var duration: TimeDelta?
    /// Most datagrams held per direction; beyond it new ones are dropped and counted in
    /// ``UDPRelayStatistics/droppedOverflow``. Bounds memory when no bandwidth cap does.
    public var maxPacketsInFlight: Int

    /// A relay from `listen` to `destination` through `forward`, returning through `backward`.
    public init(listen: UDPAddress, destination: UDPAddress, forward: NetworkConditions,
                backward: NetworkConditions = .perfect, trace: NetworkTrace? = nil, seed: UInt64 = 1,
                duration: TimeDelta? = nil, maxPacketsInFlight: Int = 20_000) {
        self.listen = listen
        self.destination = destination
        self.forward = forward
        self.backward = backward
        self.trace = trace
        self.seed = seed
        self.duration = duration
        self.maxPacketsInFlight = maxPacketsInFlight
    }
}
