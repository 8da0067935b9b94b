/// Step 7 of a preset's way to a plan (bind): each planned node as the `NodeSpec` the engine
/// runs — its edges as planned, the facts its stage is made with (`NodeFacts`), its stage.
enum StageBinding {
    static func bind(_ graph: LinkedGraph, _ plan: GraphPlan) -> [NodeSpec] {
        let planned = graph.nodes.map { $0.reading(plan[$0.id]) }
        let facts = facts(planned, plan: plan)
        return planned.map { draft in
            let inputs = draft.from.enumerated().map { NodeInput(node: $1.id, slot: .from($0)) }
                + draft.references.map {
                    NodeInput(node: GraphLinker.referencedID($0.value), slot: .reference($0.parameter, fanIn: $0.value.hasSuffix("[*]")))
                }
            return NodeSpec(id: draft.id, op: draft.definition.spec, queue: draft.queue, scope: draft.scope,
                            from: draft.from.map(\.id), inputs: inputs, parameters: draft.parameters,
                            timeout: draft.timeout, retry: draft.retry,
                            stage: stage(draft, facts[draft.id] ?? NodeFacts()), path: draft.path, copy: draft.copy,
                            plan: plan[draft.id])
        }
    }

    /// The node's stage; one made per item when a string parameter names item variables.
    private static func stage(_ draft: NodeDraft, _ facts: NodeFacts) -> any Stage {
        let stage = draft.definition.makeStage(draft.parameters, facts)
        guard draft.scope == .item else { return stage }
        return ItemTemplatedStage.wrapping(stage, definition: draft.definition, parameters: draft.parameters, facts: facts)
    }

    /// Graph facts per node id (see `NodeFacts`), from the last node back, with the plan's
    /// decisions.
    private static func facts(_ ordered: [NodeDraft], plan: GraphPlan) -> [String: NodeFacts] {
        var consumers: [String: [(draft: NodeDraft, viaFrom: Bool)]] = [:]
        for draft in ordered {
            for upstream in draft.from { consumers[upstream.id, default: []].append((draft, true)) }
            for reference in draft.references { consumers[GraphLinker.referencedID(reference.value), default: []].append((draft, false)) }
        }
        var readOnce: [String: Bool] = [:]
        for draft in ordered.reversed() {
            let readers = consumers[draft.id] ?? []
            guard readers.count == 1, let reader = readers.first, reader.viaFrom, reader.draft.scope == draft.scope else {
                readOnce[draft.id] = false
                continue
            }
            readOnce[draft.id] = reader.draft.definition.spec.readsSequentially
                && (reader.draft.definition.spec.output != .image || readOnce[reader.draft.id] == true)
        }
        var facts: [String: NodeFacts] = [:]
        for (id, once) in readOnce {
            let decided = plan[id]
            facts[id] = NodeFacts(outputIsReadOnce: once, decodedByResize: decided.fusedInto != nil, direct: decided.direct,
                                  keepsResult: decided.readers > 1, madeFromLarger: decided.cascadedFrom != nil)
        }
        return facts
    }
}
