public import ConferMedia

/// How the compositor arranges the meeting's members, re-laid out whenever members join,
/// leave or the speaker changes.
public enum LayoutKind: Hashable, Sendable {
    /// Everyone in a grid sized by member count (see ``VideoLayout/grid(_:mode:)``).
    case grid(mode: FitFill.Mode = .fit)
    /// The current (or last) speaker large, the others in a filmstrip below
    /// (see ``VideoLayout/activeSpeaker(_:others:thumbnails:mode:)``).
    case activeSpeaker(thumbnails: Int = 5, mode: FitFill.Mode = .fit)
    /// The current (or last) speaker over the whole canvas and the first other member in a
    /// corner on top (see ``VideoLayout/pictureInPicture(main:inset:corner:size:mode:)``).
    case pictureInPicture(corner: VideoLayout.Corner = .bottomRight, size: Double = 0.25, mode: FitFill.Mode = .fit)
    /// One member's shared screen large, the others' cameras in a column
    /// (see ``VideoLayout/presenter(_:cameras:maximumCameras:)``).
    case presenter(ParticipantID)
    /// A fixed layout; its unbound slots take the members it does not name, in join order.
    case custom(VideoLayout)

    /// The layout for `members` (in join order) when `featured` is the speaker to show large.
    ///
    /// Speaker-led kinds show the first member large until someone has spoken.
    public func layout(members: [ParticipantID], featured: ParticipantID?) -> VideoLayout {
        switch self {
        case .grid(let mode):
            return .grid(members, mode: mode)
        case .activeSpeaker(let thumbnails, let mode):
            guard let main = Self.main(members, featured) else { return .empty }
            return .activeSpeaker(main, others: members.filter { $0 != main }, thumbnails: thumbnails, mode: mode)
        case .pictureInPicture(let corner, let size, let mode):
            guard let main = Self.main(members, featured) else { return .empty }
            return .pictureInPicture(main: main, inset: members.first { $0 != main }, corner: corner, size: size,
                                     mode: mode)
        case .presenter(let screen):
            return .presenter(screen, cameras: members.filter { $0 != screen })
        case .custom(let layout):
            return layout.binding(members)
        }
    }

    /// Whether the layout changes when the speaker does.
    var followsSpeaker: Bool {
        switch self {
        case .activeSpeaker, .pictureInPicture: true
        case .grid, .presenter, .custom: false
        }
    }

    private static func main(_ members: [ParticipantID], _ featured: ParticipantID?) -> ParticipantID? {
        if let featured, members.contains(featured) { return featured }
        return members.first
    }
}
