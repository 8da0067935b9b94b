import WorkbenchCore

/// What nodes decided for many items alike (`ItemReport.notes`), said once at the end of a run
/// with how many items each concerns, in the order first seen.
public struct RunNotes {
    private var notes: [(text: String, items: Int)] = []

    public init() {}

    public mutating func add(_ report: ItemReport) {
        for note in report.notes {
            if let index = notes.firstIndex(where: { $0.text == note }) { notes[index].items += 1 } else { notes.append((note, 1)) }
        }
    }

    /// `Note (N items): text`, a line a note; nothing when no item gave one.
    public var lines: [String] {
        notes.map { "Note (\($0.items) item\($0.items == 1 ? "" : "s")): \($0.text)" }
    }
}
