import WorkbenchCore

/// A preset's graph as Graphviz `dot`, Mermaid, or a text tree. Nodes show id, op and queue;
/// run-scope nodes are drawn apart (a double border, a "run scope" cluster); `from` edges are
/// solid, references (`"@id"`) dashed, fan-ins (`"@id[*]"`) bold and labelled "every item".
public struct GraphRenderer {
    public let preset: Preset

    public init(_ preset: Preset) { self.preset = preset }

    private struct Edge {
        let from: String, to: String
        enum Kind { case from, reference(String), fanIn(String) }
        let kind: Kind
    }

    private var edges: [Edge] {
        preset.nodes.flatMap { node in
            node.inputs.map { input -> Edge in
                switch input.slot {
                case .from: return Edge(from: input.node, to: node.id, kind: .from)
                case .reference(let parameter, let fanIn):
                    return Edge(from: input.node, to: node.id, kind: fanIn ? .fanIn(parameter) : .reference(parameter))
                }
            }
        }
    }

    public func dot() -> String {
        var lines = ["digraph \"\(escape(preset.name ?? "preset"))\" {", "  rankdir=TB;",
                     "  node [shape=box, style=\"rounded,filled\", fontname=\"Helvetica\", fillcolor=\"#f4f4f4\"];"]
        let queues = Array(Set(preset.nodes.map(\.queue))).sorted()
        let colours = ["#dbe9f6", "#fde3c8", "#d9f0d3", "#eadcf2", "#fbe0e6", "#f2f2c6"]
        func colour(_ queue: String) -> String { colours[(queues.firstIndex(of: queue) ?? 0) % colours.count] }
        for node in preset.nodes where node.scope == .item {
            lines.append("  \"\(escape(node.id))\" [label=\"\(escape(node.id))\\n\(escape(node.op.name)) · \(escape(node.queue))\", fillcolor=\"\(colour(node.queue))\"];")
        }
        let runNodes = preset.nodes.filter { $0.scope == .run }
        if !runNodes.isEmpty {
            lines.append("  subgraph cluster_run { label=\"run scope (once per run)\"; style=dashed;")
            for node in runNodes {
                lines.append("    \"\(escape(node.id))\" [label=\"\(escape(node.id))\\n\(escape(node.op.name)) · \(escape(node.queue))\", peripheries=2, fillcolor=\"\(colour(node.queue))\"];")
            }
            lines.append("  }")
        }
        for edge in edges {
            let style: String
            switch edge.kind {
            case .from: style = ""
            case .reference(let p): style = " [style=dashed, label=\"\(escape(p))\"]"
            case .fanIn(let p): style = " [style=bold, label=\"\(escape(p)) (every item)\"]"
            }
            lines.append("  \"\(escape(edge.from))\" -> \"\(escape(edge.to))\"\(style);")
        }
        lines.append("}")
        return lines.joined(separator: "\n") + "\n"
    }

    public func mermaid() -> String {
        var ids: [String: String] = [:]
        for (i, node) in preset.nodes.enumerated() { ids[node.id] = "n\(i)" }
        var lines = ["flowchart TD"]
        func label(_ node: NodeSpec) -> String { "\"\(mermaidText(node.id))<br/>\(mermaidText(node.op.name)) · \(mermaidText(node.queue))\"" }
        for node in preset.nodes where node.scope == .item { lines.append("  \(ids[node.id] ?? "")[\(label(node))]") }
        let runNodes = preset.nodes.filter { $0.scope == .run }
        if !runNodes.isEmpty {
            lines.append("  subgraph run [\"run scope (once per run)\"]")
            for node in runNodes { lines.append("    \(ids[node.id] ?? "")[[\(label(node))]]") }
            lines.append("  end")
        }
        for edge in edges {
            let a = ids[edge.from] ?? "", b = ids[edge.to] ?? ""
            switch edge.kind {
            case .from: lines.append("  \(a) --> \(b)")
            case .reference(let p): lines.append("  \(a) -. \"\(mermaidText(p))\" .-> \(b)")
            case .fanIn(let p): lines.append("  \(a) == \"\(mermaidText(p)) (every item)\" ==> \(b)")
            }
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// The graph as an indented tree from its sources: a node under each node it reads, so
    /// branches show as branches; a node read by several appears under the first, then as
    /// "(see above)". Only the first `maxLines` lines are made (a line's indent grows with its
    /// depth, so a long chain drawn whole would be quadratic in size); `total` counts them all.
    public func tree(maxLines: Int) -> (lines: [String], total: Int) {
        var children: [String: [(String, String)]] = [:]  // parent → (child, how)
        let edges = self.edges
        for edge in edges {
            let how: String
            switch edge.kind {
            case .from: how = ""
            case .reference(let p): how = " (as \(p))"
            case .fanIn(let p): how = " (every item, as \(p))"
            }
            children[edge.from, default: []].append((edge.to, how))
        }
        let byID = Dictionary(preset.nodes.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        // Items' sources first, so each item's chain reads top to bottom along its `from` edges.
        let roots = preset.nodes.filter { $0.inputs.isEmpty }.sorted { ($0.scope == .item ? 0 : 1) < ($1.scope == .item ? 0 : 1) }.map(\.id)
        for id in children.keys { children[id]?.sort { ($0.1.isEmpty ? 0 : 1) < ($1.1.isEmpty ? 0 : 1) } }

        // Depth-first on a stack of its own (a chain can be a million nodes deep): every root
        // and every edge makes one line.
        struct Step { let id: String, prefix: String, last: Bool, how: String, root: Bool }
        var stack = roots.reversed().map { Step(id: $0, prefix: "  ", last: true, how: "", root: true) }
        var shown = Set<String>()
        var lines: [String] = []
        while lines.count < maxLines, let step = stack.popLast() {
            guard let node = byID[step.id] else { continue }
            let branch = step.root ? "" : (step.last ? "└─ " : "├─ ")
            if shown.contains(step.id) {
                lines.append(step.prefix + branch + "\(step.id)\(step.how) (see above)")
                continue
            }
            shown.insert(step.id)
            let scope = node.scope == .run ? ", run scope" : ""
            lines.append(step.prefix + branch + "\(step.id) (\(node.op.name), \(node.queue)\(scope))\(step.how)")
            let next = children[step.id] ?? []
            let childPrefix = step.root ? step.prefix : step.prefix + (step.last ? "   " : "│  ")
            for (i, child) in next.enumerated().reversed() {
                stack.append(Step(id: child.0, prefix: childPrefix, last: i == next.count - 1, how: child.1, root: false))
            }
        }
        return (lines, roots.count + edges.count)
    }

    private func escape(_ text: String) -> String { text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") }
    private func mermaidText(_ text: String) -> String { text.replacingOccurrences(of: "\"", with: "#quot;") }
}
