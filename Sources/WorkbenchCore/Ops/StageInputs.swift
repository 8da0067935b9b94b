/// The payloads a node receives: its `from` inputs and its reference parameters.
///
/// Stored the way the scheduler holds them (slots in edge order, names shared by every instance
/// of the node), so handing them to a body copies nothing.
public struct StageInputs: Sendable {
    let fromSlots: [Payload?]
    /// Names of the single references (`"@id"`), aligned with `referenceSlots`.
    let referenceNames: [String]
    let referenceSlots: [Payload?]
    /// Fan-ins (`"@id[*]"`) by parameter name.
    let lists: [String: [Payload]]

    init(fromSlots: [Payload?], referenceNames: [String], referenceSlots: [Payload?], lists: [String: [Payload]]) {
        self.fromSlots = fromSlots
        self.referenceNames = referenceNames
        self.referenceSlots = referenceSlots
        self.lists = lists
    }

    /// Inputs for calling a stage directly: `from` payloads, and references by name.
    public init(from: [Payload] = [], references: [String: [Payload]] = [:]) {
        self.init(fromSlots: from, referenceNames: [], referenceSlots: [], lists: references)
    }

    /// Payloads of the `from` list, in order.
    public var from: [Payload] { fromSlots.compactMap { $0 } }

    /// The first `from` payload: the input of a one-input op.
    public var first: Payload? { fromSlots.first ?? nil }

    /// The payload of reference parameter `name` (`"@id"`).
    public func reference(_ name: String) -> Payload? {
        if let i = referenceNames.firstIndex(of: name) { return referenceSlots[i] }
        return lists[name]?.first
    }

    /// Every payload of parameter `name`: all items' outputs (in item order, failed items left
    /// out) for a fan-in `"@id[*]"`, else the payloads of its references in the order written.
    public func references(_ name: String) -> [Payload] {
        if let list = lists[name] { return list }
        return referenceNames.indices.compactMap { referenceNames[$0] == name ? referenceSlots[$0] : nil }
    }
}
