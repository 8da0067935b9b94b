/// Step 3 of a preset's way to a plan (expand): the `graph` as written (with `--set` already
/// applied to it, step 2) made into one element per node: filters composed into their nodes,
/// `foreach` repeated, and `--set` on a copy's id applied to that copy.
struct GraphExpansion {
    let registry: OpRegistry
    let collector: DiagnosticCollector
    /// The preset's own filters (named sub-graphs) and plugins' beneath them.
    let filters: [String: GraphFilter]
    let overrides: [PresetOverride]

    /// The expanded elements; empty after saying why when there is no graph to expand.
    /// `left`: the overrides step 2 found no written node for (they may name a copy).
    func expand(_ graph: JSONValue?, left unmatched: [Int], documentLocation: SourceLocation) -> [GraphRepetition.Expanded] {
        guard let graph else {
            collector.error("graph", at: documentLocation, "missing required key \"graph\" (a list of nodes)")
            return []
        }
        guard case .array(let elements, let location) = graph else {
            collector.error("graph", at: graph.location, "expected a list of nodes, found \(graph.typeName)")
            return []
        }
        if elements.isEmpty {
            collector.error("graph", at: location, "the graph is empty; add at least a source node such as {\"op\": \"read\"}")
            return []
        }
        var left = unmatched
        var written = elements
        if !left.isEmpty {
            // Expanded once aside to see the copies: a `--set` on a copy's variable changes the
            // written list, and the graph is expanded (and its mistakes said) from that.
            let moves = PresetOverride.movingToForeach(overrides, left: left, copies: expand(elements, DiagnosticCollector(file: collector.file)),
                                                       graph: elements)
            left.removeAll { moves.moved.contains($0) }
            written = moves.graph
            for note in moves.notes { collector.warning("", at: SourceLocation(line: 0, column: note.index + 1), note.text) }
        }
        var expanded = expand(written, collector)
        PresetOverride.applyToCopies(overrides, left: left, to: &expanded, collector)
        return expanded
    }

    private func expand(_ elements: [JSONValue], _ collector: DiagnosticCollector) -> [GraphRepetition.Expanded] {
        let composed = PresetFilters(registry: registry, collector: collector).expand(elements.enumerated().map { ($1, $0) }, filters)
        return GraphRepetition(registry: registry, collector: collector).expand(composed)
    }
}
