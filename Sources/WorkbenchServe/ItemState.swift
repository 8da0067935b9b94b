/// Where an item stands on the live page. The server sends the raw value; the page's script
/// gets the same list from `script`, so the two never disagree.
enum ItemState: String, Codable, Sendable, CaseIterable {
    /// Not started (or stopped by an edit before it ran).
    case queued
    /// Started, its first node not yet running.
    case waiting
    /// A node of this kind is running.
    case reading, downloading, decoding, filtering, encoding, writing
    case done
    /// Its files were already what the preset makes.
    case upToDate
    case failed
    /// Stopped off screen, or cancelled from the page.
    case cancelled
    /// Scrolled away while running: lowered behind what the page shows (raised again when it
    /// comes back, cancelled after the off-screen grace).
    case lowered
    /// Made by an earlier version of the preset; made again when looked at.
    case stale

    /// What the page shows.
    var label: String { self == .upToDate ? "up to date" : rawValue }

    /// A node is running.
    var isWorking: Bool { [.reading, .downloading, .decoding, .filtering, .encoding, .writing].contains(self) }

    /// Its outputs can be shown.
    var showsOutputs: Bool { [.done, .upToDate, .stale].contains(self) }

    /// The state while a node of `op` runs.
    static func working(on op: String) -> ItemState {
        switch op {
        case "read": return .reading
        case "download": return .downloading
        case "decode": return .decoding
        case "encode": return .encoding
        case "write": return .writing
        default: return .filtering
        }
    }

    /// The states for the page's script: `ItemState.done`, `ItemState.label(s)`,
    /// `ItemState.showsOutputs(s)`, and the CSS selector of the working ones.
    static var script: String {
        let names = allCases.map { "\($0.rawValue): \"\($0.rawValue)\"" }.joined(separator: ", ")
        let labels = allCases.filter { $0.label != $0.rawValue }.map { "\($0.rawValue): \"\($0.label)\"" }.joined(separator: ", ")
        let outputs = allCases.filter(\.showsOutputs).map { "\"\($0.rawValue)\"" }.joined(separator: ", ")
        return """
            const ItemState = Object.freeze({ \(names),
              label: s => ({ \(labels) })[s] || s,
              showsOutputs: s => [\(outputs)].includes(s) });
            """
    }

    /// `.state.reading, .state.downloading, …`: the working states, for the page's style sheet.
    static var workingSelector: String { allCases.filter(\.isWorking).map { ".state.\($0.rawValue)" }.joined(separator: ", ") }
}
