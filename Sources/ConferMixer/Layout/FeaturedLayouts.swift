public import ConferMedia

extension VideoLayout {
    /// A corner of the canvas.
    public enum Corner: String, Hashable, Sendable, Codable, CaseIterable {
        /// Top left.
        case topLeft
        /// Top right.
        case topRight
        /// Bottom left.
        case bottomLeft
        /// Bottom right.
        case bottomRight
    }

    /// One large slot for `speaker` above a filmstrip of up to `thumbnails` of `others`.
    ///
    /// The strip runs along the bottom, 1/`thumbnails` of the canvas high, and each
    /// thumbnail is 1/`thumbnails` of the canvas wide, so thumbnails have the canvas's aspect
    /// ratio; fewer thumbnails are centred. Members beyond `thumbnails` are not shown. With
    /// nobody else the speaker takes the whole canvas.
    public static func activeSpeaker(_ speaker: ParticipantID, others: [ParticipantID], thumbnails: Int = 5,
                                     mode: FitFill.Mode = .fit) -> VideoLayout {
        let limit = max(1, thumbnails)
        let shown = others.prefix(limit)
        guard !shown.isEmpty else {
            return VideoLayout(unchecked: [Slot(x: 0, y: 0, width: 1, height: 1, mode: mode, participant: speaker)])
        }
        let stripTop = Double(limit - 1) / Double(limit)
        var slots = [Slot(x: 0, y: 0, width: 1, height: stripTop, mode: mode, participant: speaker)]
        let offset = Double(limit - shown.count) / 2
        for (i, member) in shown.enumerated() {
            var thumbnail = cell(column: Double(i) + offset, columns: limit, row: Double(limit - 1), rows: limit, mode: mode)
            thumbnail.participant = member
            slots.append(thumbnail)
        }
        return VideoLayout(unchecked: slots)
    }

    /// `main` over the whole canvas with `inset` in a `corner` on top of it.
    ///
    /// The inset is `size` of the canvas in each direction (so it has the canvas's aspect
    /// ratio), kept off the canvas edges by a margin of 1/50 of the canvas.
    public static func pictureInPicture(main: ParticipantID, inset: ParticipantID?, corner: Corner = .bottomRight,
                                        size: Double = 0.25, mode: FitFill.Mode = .fit) -> VideoLayout {
        var slots = [Slot(x: 0, y: 0, width: 1, height: 1, z: 0, mode: mode, participant: main)]
        if let inset {
            let margin = 0.02
            let side = min(max(size, 0.05), 1 - 2 * margin)
            let left = corner == .topLeft || corner == .bottomLeft ? margin : 1 - margin - side
            let top = corner == .topLeft || corner == .topRight ? margin : 1 - margin - side
            slots.append(Slot(x: left, y: top, width: side, height: side, z: 1, mode: mode, participant: inset))
        }
        return VideoLayout(unchecked: slots)
    }

    /// A shared screen large on the left (3/4 of the width, letterboxed, since a screen's
    /// text must not be cropped) and up to `maximumCameras` (at most 4) of `cameras` in a
    /// column on the right, centred vertically.
    ///
    /// Camera slots are 1/4 of the canvas in each direction, so they keep the canvas's
    /// aspect ratio and four fill the column; cameras are cropped to fill them.
    public static func presenter(_ screen: ParticipantID, cameras: [ParticipantID],
                                 maximumCameras: Int = 4) -> VideoLayout {
        var slots = [Slot(x: 0, y: 0, width: 0.75, height: 1, mode: .fit, participant: screen)]
        let shown = cameras.prefix(max(0, min(maximumCameras, 4)))
        let offset = Double(4 - shown.count) / 2
        for (i, member) in shown.enumerated() {
            var camera = cell(column: 3, columns: 4, row: Double(i) + offset, rows: 4, mode: .fill)
            camera.participant = member
            slots.append(camera)
        }
        return VideoLayout(unchecked: slots)
    }
}
