import Foundation

/// A preset's graph compiled for scheduling: indices instead of names, edges both ways, depth,
/// and each node's inherited priority.
struct RunPlan: Sendable {
    struct Edge: Sendable {
        /// The upstream node's index.
        let node: Int
        let slot: NodeInput.Slot
        /// An item-scope node reading a run-scope node's output.
        var fromRunScope: Bool
        /// A run-scope node collecting every item's output.
        var isFanIn: Bool { if case .reference(_, true) = slot { return true } else { return false } }
    }

    struct Node: Sendable {
        let spec: NodeSpec
        let scope: NodeScope
        let queue: Int
        let isIO: Bool
        var inputs: [Edge]
        /// Downstream node indices (each once per edge).
        var dependents: [Int] = []
        var depth = 0
        /// The highest QoS rank among this node and everything downstream of it (priority inheritance).
        var qos = 0
        /// No node reads its output: its result is the point, so nobody-needs-it cancellation never applies.
        var isSink: Bool { dependents.isEmpty }
        var fromCount: Int { spec.from.count }
    }

    let nodes: [Node]
    let queues: [QueueSpec]
    /// Permits per queue.
    let limits: [Int]
    let itemNodes: [Int]
    let runNodes: [Int]

    init(preset: Preset, cores: Int) {
        queues = preset.queues
        limits = preset.queues.map { spec in
            switch spec.concurrency {
            case .auto: return cores
            case .fixed(let n): return n
            }
        }
        let index = Dictionary(uniqueKeysWithValues: preset.nodes.enumerated().map { ($1.id, $0) })
        var nodes: [Node] = preset.nodes.map { spec in
            let queue = preset.queues.firstIndex { $0.name == spec.queue } ?? 0
            let edges = spec.inputs.compactMap { input -> Edge? in
                guard let u = index[input.node] else { return nil }
                return Edge(node: u, slot: input.slot, fromRunScope: false)
            }
            return Node(spec: spec, scope: spec.scope, queue: queue, isIO: spec.op.execution == .io, inputs: edges)
        }
        // Nodes arrive upstream first, so one forward pass sets depth and one backward pass QoS.
        for n in nodes.indices {
            for e in nodes[n].inputs.indices {
                let u = nodes[n].inputs[e].node
                nodes[n].inputs[e].fromRunScope = nodes[u].scope == .run && nodes[n].scope == .item
                nodes[u].dependents.append(n)
                nodes[n].depth = max(nodes[n].depth, nodes[u].depth + 1)
            }
        }
        for n in nodes.indices.reversed() {
            nodes[n].qos = max(preset.queues[nodes[n].queue].qos.rank, nodes[n].dependents.map { nodes[$0].qos }.max() ?? 0)
        }
        self.nodes = nodes
        itemNodes = nodes.indices.filter { nodes[$0].scope == .item }
        runNodes = nodes.indices.filter { nodes[$0].scope == .run }
    }
}
