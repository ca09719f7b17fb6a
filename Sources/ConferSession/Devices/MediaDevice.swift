/// A member's capture device that the host can turn off or ask to have turned on.
public enum MediaDevice: String, Sendable, Codable, CaseIterable, Hashable {
    /// The microphone.
    case microphone
    /// The camera.
    case camera
}

/// Which of a member's devices are on.
public struct DeviceStates: Sendable, Codable, Hashable {
    /// Whether the microphone sends.
    public var microphone: Bool
    /// Whether the camera sends.
    public var camera: Bool

    /// Both on, or as given.
    public init(microphone: Bool = true, camera: Bool = true) {
        self.microphone = microphone
        self.camera = camera
    }

    /// Both off: what an observer, who sends nothing, shows.
    public static let off = DeviceStates(microphone: false, camera: false)

    /// The state of one device.
    public subscript(device: MediaDevice) -> Bool {
        get { device == .microphone ? microphone : camera }
        set { if device == .microphone { microphone = newValue } else { camera = newValue } }
    }
}
