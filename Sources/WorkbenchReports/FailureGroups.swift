import WorkbenchCore

/// Failed items grouped by cause, for the end of a run: the same node failing the same way
/// (with the item's own name and source taken out of the message) is one cause.
public struct FailureGroups {
    public struct Group {
        public let node: String
        /// The message as its one item gave it, or without the items' own names once several share it.
        public fileprivate(set) var message: String
        public var items: [String]
        /// The message without the item's own name: what items of one cause share.
        fileprivate let key: String
    }

    public private(set) var groups: [Group] = []

    public init() {}

    public mutating func add(_ report: ItemReport) {
        guard report.status == .failed, let failure = report.failure else { return }
        let message = Self.withoutOwnName(failure.message, source: report.item.source, name: report.item.name)
        if let index = groups.firstIndex(where: { $0.node == failure.node && $0.key == message }) {
            groups[index].items.append(report.item.name)
            groups[index].message = message
        } else {
            groups.append(Group(node: failure.node, message: failure.message, items: [report.item.name], key: message))
        }
    }

    /// The message with the item's own source, and its name where it stands as a name (quoted,
    /// as a path's last part, or after "item "), taken out; a word that merely equals the name
    /// (`empty` in "the file is empty") stays.
    static func withoutOwnName(_ message: String, source: String, name: String) -> String {
        var message = message
        if source.count > 2 { message = message.replacingOccurrences(of: source, with: "…") }
        guard name.count > 2 else { return message }
        for before in ["\"", "/", "item "] {
            for after in ["\"", ".", " ", ":", ",", ")"] {
                message = message.replacingOccurrences(of: before + name + after, with: before + "…" + after)
            }
            if message.hasSuffix(before + name) { message = String(message.dropLast(name.count)) + "…" }
        }
        return message
    }

    /// `Failed (N):` then a line per cause with its items, biggest cause first; nothing if none failed.
    public var lines: [String] {
        guard !groups.isEmpty else { return [] }
        let count = groups.reduce(0) { $0 + $1.items.count }
        var lines = ["Failed (\(count)):"]
        for group in groups.sorted(by: { $0.items.count > $1.items.count }) {
            let names = group.items.count <= 8 ? group.items.joined(separator: ", ")
                : group.items.prefix(6).joined(separator: ", ") + " and \(group.items.count - 6) more"
            lines.append("  \(group.items.count) × \(group.node): \(group.message)")
            lines.append("      \(names)")
        }
        return lines
    }
}
