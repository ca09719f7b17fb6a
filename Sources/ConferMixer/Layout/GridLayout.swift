public import ConferMedia

extension VideoLayout {
    /// The grid of cells used for `count` members: columns across, rows down.
    ///
    /// 1 → 1×1, 2 → 2×1 (side by side), 3–4 → 2×2, 5–6 → 3×2, 7–9 → 3×3, and from 10 on
    /// n×n with n = ⌈√count⌉ (10–16 → 4×4, 17–25 → 5×5, 26–36 → 6×6, …). Cells of an n×n
    /// grid have the canvas's own aspect ratio, so camera pictures of that shape fill them.
    public static func gridShape(count: Int) -> (columns: Int, rows: Int) {
        switch count {
        case ...0: return (0, 0)
        case 1: return (1, 1)
        case 2: return (2, 1)
        case 3...4: return (2, 2)
        case 5...6: return (3, 2)
        default:
            var n = 3
            while n * n < count { n += 1 }
            return (n, n)
        }
    }

    /// A grid of `members`, one cell each, in order left to right and top to bottom.
    ///
    /// Cells keep the size ``gridShape(count:)`` gives them. A last row that is not full is
    /// centred horizontally (3 members: two above, one centred below), and when fewer rows
    /// are used than the grid has (10 members use 3 rows of a 4×4 grid) the used rows are
    /// centred vertically, so the picture stays balanced instead of leaving an empty band
    /// at the bottom.
    public static func grid(_ members: [ParticipantID], mode: FitFill.Mode = .fit) -> VideoLayout {
        var slots = grid(count: members.count, mode: mode).slots
        for i in slots.indices { slots[i].participant = members[i] }
        return VideoLayout(unchecked: slots)
    }

    /// A grid of `count` slots that name nobody (see ``grid(_:mode:)``).
    public static func grid(count: Int, mode: FitFill.Mode = .fit) -> VideoLayout {
        let (columns, rows) = gridShape(count: count)
        guard count > 0 else { return .empty }
        let usedRows = (count + columns - 1) / columns
        let rowOffset = Double(rows - usedRows) / 2
        var slots: [Slot] = []
        slots.reserveCapacity(count)
        for row in 0..<usedRows {
            let inRow = min(columns, count - row * columns)
            let columnOffset = Double(columns - inRow) / 2
            for column in 0..<inRow {
                slots.append(cell(column: Double(column) + columnOffset, columns: columns,
                                  row: Double(row) + rowOffset, rows: rows, mode: mode))
            }
        }
        return VideoLayout(unchecked: slots)
    }

    /// The cell at (possibly half-way) grid position `column`, `row`; its far edges are
    /// computed as the next cell's near edges are, so neighbours meet exactly.
    static func cell(column: Double, columns: Int, row: Double, rows: Int, mode: FitFill.Mode) -> Slot {
        let left = column / Double(columns), right = (column + 1) / Double(columns)
        let top = row / Double(rows), bottom = (row + 1) / Double(rows)
        return Slot(x: left, y: top, width: right - left, height: bottom - top, mode: mode)
    }
}
