/// The host's request that a member turn a device on, which the member accepts or rejects
/// and which expires unanswered.
public struct DeviceRequest: Sendable, Codable, Hashable, Identifiable {
    /// Unique within the room.
    public var id: UInt64
    /// The member asked.
    public var identity: String
    /// The device to turn on.
    public var device: MediaDevice
    /// When the request was made.
    public var created: SessionTime
    /// When it expires unanswered.
    public var expires: SessionTime
}

/// How a device request ended.
public enum DeviceRequestOutcome: String, Sendable, Codable, Hashable {
    /// The member turned the device on.
    case accepted
    /// The member said no.
    case rejected
    /// Nobody answered in time.
    case expired
    /// The member left first, or may no longer be asked: it became an observer or the host.
    case withdrawn
}
