import Testing
import ConferMedia
import ConferMixer

@Suite struct LayoutJSONTests {
    @Test func decodesTheDocumentedSchemaWithDefaults() throws {
        let layout = try VideoLayout(json: """
            {"slots": [
              {"x": 0, "y": 0, "width": 0.5, "height": 1, "z": 0, "mode": "fit"},
              {"x": 0.5, "y": 0, "width": 0.5, "height": 0.5, "mode": "fill", "participant": 7},
              {"x": 0.5, "y": 0.5, "width": 0.5, "height": 0.5, "z": 2, "comment": "ignored"}
            ]}
            """)
        #expect(layout.slots == [
            .init(x: 0, y: 0, width: 0.5, height: 1, z: 0, mode: .fit),
            .init(x: 0.5, y: 0, width: 0.5, height: 0.5, z: 0, mode: .fill, participant: 7),
            .init(x: 0.5, y: 0.5, width: 0.5, height: 0.5, z: 2, mode: .fit),
        ])
        #expect(layout.pixelRects(width: 1280, height: 720)[2] == PixelRect(x: 640, y: 360, width: 640, height: 360))
    }

    @Test func encodesToJSONThatDecodesToTheSameLayout() throws {
        let layouts: [VideoLayout] = [
            .grid([1, 2, 3, 4, 5]), .pictureInPicture(main: 1, inset: 2, corner: .topLeft, mode: .fill),
            .presenter(9, cameras: [1, 2]),
        ]
        for layout in layouts {
            #expect(try VideoLayout(json: layout.json) == layout, "\(layout.json)")
        }
    }

    @Test func unnamedSlotsTakeTheRemainingMembersInOrder() throws {
        let layout = try VideoLayout(json: """
            {"slots": [{"x": 0, "y": 0, "width": 0.5, "height": 1},
                       {"x": 0.5, "y": 0, "width": 0.5, "height": 0.5, "participant": 7},
                       {"x": 0.5, "y": 0.5, "width": 0.5, "height": 0.5},
                       {"x": 0.9, "y": 0.9, "width": 0.1, "height": 0.1}]}
            """)
        let bound = LayoutKind.custom(layout).layout(members: [1, 7, 2], featured: nil)
        #expect(bound.slots.map(\.participant) == [1, 7, 2, nil])
    }

    struct BadCase: Sendable, CustomTestStringConvertible {
        let json: String
        let reason: LayoutError.Reason
        let slot: Int?
        let field: String?
        var testDescription: String { "\(reason) \(slot.map(String.init) ?? "-") \(field ?? "-")" }
    }

    static let slot = #"{"x": 0, "y": 0, "width": 0.5, "height": 0.5}"#

    static let badCases: [BadCase] = [
        BadCase(json: "not json", reason: .malformedJSON, slot: nil, field: nil),
        BadCase(json: "[]", reason: .wrongType, slot: nil, field: nil),
        BadCase(json: "{}", reason: .missingField, slot: nil, field: "slots"),
        BadCase(json: #"{"slots": 3}"#, reason: .wrongType, slot: nil, field: "slots"),
        BadCase(json: #"{"slots": []}"#, reason: .noSlots, slot: nil, field: nil),
        BadCase(json: #"{"slots": [\#(slot), {"x": 0, "y": 0, "height": 1}]}"#,
                reason: .missingField, slot: 1, field: "width"),
        BadCase(json: #"{"slots": [{"x": "left", "y": 0, "width": 1, "height": 1}]}"#,
                reason: .wrongType, slot: 0, field: "x"),
        BadCase(json: #"{"slots": [\#(slot), \#(slot), {"x": 0, "y": 0, "width": 1, "height": 1, "mode": "stretch"}]}"#,
                reason: .invalidValue, slot: 2, field: "mode"),
        BadCase(json: #"{"slots": [{"x": -0.1, "y": 0, "width": 0.5, "height": 1}]}"#,
                reason: .outOfRange, slot: 0, field: "x"),
        BadCase(json: #"{"slots": [\#(slot), {"x": 0, "y": 1.5, "width": 0.5, "height": 0.5}]}"#,
                reason: .outOfRange, slot: 1, field: "y"),
        BadCase(json: #"{"slots": [{"x": 0, "y": 0, "width": 0, "height": 1}]}"#,
                reason: .nonPositiveSize, slot: 0, field: "width"),
        BadCase(json: #"{"slots": [{"x": 0, "y": 0, "width": 1, "height": -1}]}"#,
                reason: .nonPositiveSize, slot: 0, field: "height"),
        BadCase(json: #"{"slots": [{"x": 0.6, "y": 0, "width": 0.5, "height": 1}]}"#,
                reason: .outOfRange, slot: 0, field: "width"),
        BadCase(json: #"{"slots": [{"x": 0, "y": 0.5, "width": 1, "height": 0.6}]}"#,
                reason: .outOfRange, slot: 0, field: "height"),
        BadCase(json: #"{"slots": [{"x": 0, "y": 0, "width": 1, "height": 1, "z": 0.5}]}"#,
                reason: .invalidValue, slot: 0, field: "z"),
        BadCase(json: #"{"slots": [\#(slot), {"x": 0, "y": 0, "width": 1, "height": 1, "participant": -1}]}"#,
                reason: .invalidValue, slot: 1, field: "participant"),
        BadCase(json: #"{"slots": [{"x": 0, "y": 0, "width": 1, "height": 1, "participant": 4294967296}]}"#,
                reason: .invalidValue, slot: 0, field: "participant"),
        BadCase(json: #"{"slots": [{"x": 0, "y": 0, "width": 1e400, "height": 1}]}"#,
                reason: .malformedJSON, slot: nil, field: nil),
        BadCase(json: #"{"slots": [{"x": 0, "y": 0, "width": 1, "height": 1, "participant": "bob"}]}"#,
                reason: .wrongType, slot: 0, field: "participant"),
        BadCase(json: #"{"slots": [\#(Array(repeating: slot, count: 101).joined(separator: ","))]}"#,
                reason: .tooManySlots, slot: nil, field: nil),
        BadCase(json: #"{"slots": [\#(slot)], "pad": "\#(String(repeating: " ", count: 70_000))"}"#,
                reason: .tooLarge, slot: nil, field: nil),
    ]

    @Test(arguments: badCases)
    func rejectsBadLayoutsNamingTheSlotAndField(_ bad: BadCase) {
        #expect {
            _ = try VideoLayout(json: bad.json)
        } throws: { error in
            guard let error = error as? LayoutError else { return false }
            return error.reason == bad.reason && error.slot == bad.slot && error.field == bad.field
        }
    }

    @Test func errorsReadAsASentenceNamingThePlace() {
        do {
            _ = try VideoLayout(json: #"{"slots": [{"x": 0, "y": 0, "width": 2, "height": 1}]}"#)
            Issue.record("an oversized slot was accepted")
        } catch {
            #expect(error.description.hasPrefix("layout slot 0, field width:"), "\(error)")
        }
    }

    @Test func participantIDsAreBareNumbers() throws {
        let layout = try VideoLayout(slots: [.init(x: 0, y: 0, width: 1, height: 1, participant: 42)])
        #expect(layout.json.contains(#""participant":42"#))
        #expect(ParticipantID(42) == 42 && ParticipantID(3) < ParticipantID(4))
    }
}
