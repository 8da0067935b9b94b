/// Step 5 of a preset's way to a plan (link): checks the checked nodes' edges — each `from`
/// and reference names a node that makes the right kind of payload, in a scope it may read —
/// and orders the nodes upstream first. Planning (step 6) and binding stages (step 7) come after.
struct GraphLinker {
    let collector: DiagnosticCollector

    /// `"@thumb[*]"` → `thumb`.
    static func referencedID(_ value: String) -> String {
        var id = value.dropFirst()
        if id.hasSuffix("[*]") { id = id.dropLast(3) }
        return String(id)
    }

    func link(_ drafts: [NodeDraft]) -> LinkedGraph? {
        var byID: [String: NodeDraft] = [:]
        var duplicates = Set<Int>()
        for draft in drafts {
            if let first = byID[draft.id] {
                duplicates.insert(draft.index)
                collector.error(join(draft.path, "id"), at: draft.idLocation,
                                "duplicate node id \"\(draft.id)\" (also \(first.path)); give each node its own \"id\"")
            } else {
                byID[draft.id] = draft
            }
        }
        // A duplicate's edges would only repeat the duplicate-id error in other words.
        let ids = drafts.map(\.id)
        for draft in drafts where !duplicates.contains(draft.index) {
            checkFrom(draft, byID: byID, ids: ids)
            checkReferences(draft, byID: byID, ids: ids)
        }
        guard !collector.hasErrors, let ordered = topologicalOrder(drafts) else { return nil }

        let consumed = Set(drafts.flatMap(\.upstreamIDs))
        for draft in ordered where !consumed.contains(draft.id) && draft.definition.spec.output != .file {
            collector.warning(draft.path, at: draft.location,
                              "the result of \"\(draft.id)\" is not used by any node; add a \"write\" after it to keep it")
        }
        return LinkedGraph(nodes: ordered)
    }

    private func checkFrom(_ draft: NodeDraft, byID: [String: NodeDraft], ids: [String]) {
        let spec = draft.definition.spec
        if spec.input == nil, !draft.from.isEmpty {
            collector.error(join(draft.path, "from"), at: draft.from[0].location,
                            "\"\(spec.name)\" is a source op and reads the item itself; remove \"from\"")
            return
        }
        if spec.input == nil, draft.scope == .run, draft.references.isEmpty {
            if let parameter = spec.sourceParameter, draft.parameters[parameter] == nil {
                collector.error(join(draft.path, parameter), at: draft.location,
                                "a run-scope \"\(spec.name)\" has no item to read; give it \"\(parameter)\"")
            } else if spec.sourceParameter == nil {
                collector.error(join(draft.path, "scope"), at: draft.location,
                                "\"\(spec.name)\" reads the item, so it cannot have run scope")
            }
        }
        guard let expected = spec.input else { return }
        if draft.from.isEmpty {
            let hint = draft.scope == .run
                ? "a run-scope node has no default input; name one with \"from\""
                : "start the graph with \"read\" or \"download\""
            collector.error(draft.path, at: draft.location,
                            "\"\(spec.name)\" needs \(expected.article) from an upstream node, but nothing comes before it; \(hint)")
            return
        }
        if draft.from.count > 1 {
            collector.error(join(draft.path, "from"), at: draft.from[1].location,
                            "\"\(spec.name)\" takes one input, but \(draft.from.count) are listed")
        }
        for edge in draft.from {
            guard let upstream = byID[edge.id] else {
                collector.error(join(draft.path, "from"), at: edge.location, "no node has the id \(DiagnosticCollector.quote(edge.id))"
                                + DidYouMean.hint(for: edge.id, among: ids))
                continue
            }
            if upstream.id == draft.id {
                collector.error(join(draft.path, "from"), at: edge.location, "a node cannot read from itself")
            } else if upstream.definition.spec.output != expected {
                collector.error(join(draft.path, "from"), at: edge.location,
                                "\"\(spec.name)\" needs \(expected.article), but \"\(upstream.id)\" (\(upstream.definition.spec.name)) produces \(upstream.definition.spec.output.article)")
            } else if draft.scope == .run && upstream.scope == .item {
                collector.error(join(draft.path, "from"), at: edge.location,
                                "a run-scope node cannot read one item's output; collect every item's with a fan-in \"@\(upstream.id)[*]\"")
            }
        }
    }

    private func checkReferences(_ draft: NodeDraft, byID: [String: NodeDraft], ids: [String]) {
        let spec = draft.definition.spec
        for reference in draft.references {
            let path = join(draft.path, reference.parameter)
            let id = Self.referencedID(reference.value)
            guard let upstream = byID[id] else {
                collector.error(path, at: reference.location, "no node has the id \(DiagnosticCollector.quote(id))" + DidYouMean.hint(for: id, among: ids))
                continue
            }
            guard let parameter = spec.parameters.first(where: { $0.name == reference.parameter }) else { continue }
            let fanIn = reference.value.hasSuffix("[*]")
            let expected: PayloadKind
            switch parameter.type {
            case .reference(let kind), .fanIn(let kind), .references(let kind): expected = kind
            case .imageOrMatrix: expected = .image
            default: continue
            }
            if upstream.id == draft.id {
                collector.error(path, at: reference.location, "a node cannot refer to itself")
            } else if upstream.definition.spec.output != expected {
                collector.error(path, at: reference.location,
                                "\"\(reference.parameter)\" needs \(expected.article), but \"\(id)\" (\(upstream.definition.spec.name)) produces \(upstream.definition.spec.output.article)")
            } else if fanIn && (draft.scope != .run || upstream.scope != .item) {
                collector.error(path, at: reference.location,
                                "a fan-in \"@\(id)[*]\" collects an item-scope node's output from every item, so it belongs on a node with \"scope\": \"run\"")
            } else if !fanIn && draft.scope == .run && upstream.scope == .item {
                collector.error(path, at: reference.location,
                                "a run-scope node cannot read one item's output; use \"@\(id)[*]\" to collect every item's")
            }
        }
    }

    /// Kahn's algorithm, stable in file order (of the nodes ready, the earliest in the file goes
    /// first); linear in nodes and edges, apart from the heap's log. Reports the nodes on a cycle.
    private func topologicalOrder(_ drafts: [NodeDraft]) -> [NodeDraft]? {
        var position: [String: Int] = [:]
        for (i, draft) in drafts.enumerated() { position[draft.id] = i }
        var remaining = [Int](repeating: 0, count: drafts.count)
        var dependents = [[Int]](repeating: [], count: drafts.count)
        for (i, draft) in drafts.enumerated() {
            for upstream in draft.upstreamIDs {
                guard let u = position[upstream] else { continue }
                remaining[i] += 1
                dependents[u].append(i)
            }
        }
        var ready = PriorityHeap<Int>()
        for i in drafts.indices where remaining[i] == 0 { ready.push(i) }
        var order: [NodeDraft] = []
        order.reserveCapacity(drafts.count)
        while let next = ready.pop() {
            order.append(drafts[next])
            for d in dependents[next] {
                remaining[d] -= 1
                if remaining[d] == 0 { ready.push(d) }
            }
        }
        guard order.count == drafts.count else {
            let stuck = drafts.indices.filter { remaining[$0] > 0 }.map { drafts[$0] }
            let names = stuck.prefix(10).map { "\"\($0.id)\"" }.joined(separator: ", ") + (stuck.count > 10 ? ", … (\(stuck.count) nodes)" : "")
            collector.error(join(stuck[0].path, "from"), at: stuck[0].location, "the graph has a cycle through " + names)
            return nil
        }
        return order
    }
}

/// The nodes of a preset whose edges hold, upstream first: what the planner plans.
struct LinkedGraph {
    let nodes: [NodeDraft]
}
