import WorkbenchCore

/// Failed items grouped by cause, for the end of a run: the same node failing the same way
/// (with the item's own name and source taken out of the message) is one cause.
public struct FailureGroups {
    public struct Group {
        public let node: String
        public let message: String
        public var items: [String]
    }

    public private(set) var groups: [Group] = []

    public init() {}

    public mutating func add(_ report: ItemReport) {
        guard report.status == .failed, let failure = report.failure else { return }
        var message = failure.message
        for own in [report.item.source, report.item.name] where own.count > 2 {
            message = message.replacingOccurrences(of: own, with: "…")
        }
        if let index = groups.firstIndex(where: { $0.node == failure.node && $0.message == message }) {
            groups[index].items.append(report.item.name)
        } else {
            groups.append(Group(node: failure.node, message: message, items: [report.item.name]))
        }
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
