/// What the planner decided for one node, for the engine and for `workbench explain`.
public struct NodePlan: Sendable, Equatable {
    /// The node the preset said it reads from, when the plan has it read another instead.
    public var writtenFrom: String?
    /// With `writtenFrom`: the larger size this resize is made from (its new `from`), and how
    /// many times larger that is.
    public var cascadedFrom: String?
    public var cascadeFactor = 0.0
    /// How many nodes read this node's result within an item (after the cascade).
    public var readers = 0
    /// For a decoder (`OpSpec.shrinksOnLoad`): the resize that alone reads it, which decodes and
    /// shrinks in one step from the bytes.
    public var fusedInto: String?
    /// For such a decoder: what the direct path runs after it, when its resize and everything
    /// that reads it (fits made from it, encodes) has a direct form (`DirectForm`).
    public var direct: DirectChain?
    /// For a fused decoder off the direct path: which node keeps it there, in words.
    public var directRefusal: String?
    /// For a copy of a fit written with `foreach`: the copies of the same node that fit the same
    /// image into smaller boxes, smallest first. An image that fits one of those boxes comes out
    /// the same from both, so the engine makes it only once: this copy's result still feeds
    /// the resizes made from it, and nothing else of it is made (`Payload.omitted`).
    public var smallerCopies: [SmallerCopy] = []

    public init() {}
}

/// A smaller copy of the same fit, as `NodePlan.smallerCopies` lists it.
public struct SmallerCopy: Sendable, Equatable {
    public let id: String
    public let box: FitBox

    public init(id: String, box: FitBox) {
        self.id = id
        self.box = box
    }
}

/// What the planner decided for every node of a preset, by id: a value the binding, the
/// engine (through each `NodeSpec.plan`), `explain` and serve read, never rewritten.
struct GraphPlan {
    var nodes: [String: NodePlan] = [:]

    /// The node's plan; an empty one for a node the planner had nothing to say of.
    subscript(id: String) -> NodePlan { nodes[id] ?? NodePlan() }
}

extension NodeDraft {
    /// The node as it reads under `plan`: a cascaded resize reads the larger size it is made from.
    func reading(_ plan: NodePlan) -> NodeDraft {
        guard let larger = plan.cascadedFrom, !from.isEmpty else { return self }
        var draft = self
        draft.from[0].id = larger
        return draft
    }
}
