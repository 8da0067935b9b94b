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
        /// For a single reference (`"@id"`): its position among the node's single references.
        var singleIndex = -1
        /// A run-scope node collecting every item's output.
        var isFanIn: Bool { if case .reference(_, true) = slot { return true } else { return false } }
    }

    /// A class, so that reading a node in the scheduler's hot path is one reference, not a copy
    /// of the whole declaration.
    final class Node: Sendable {
        let spec: NodeSpec
        let scope: NodeScope
        let queue: Int
        let isIO: Bool
        let inputs: [Edge]
        /// Downstream node indices, each once.
        let dependents: [Int]
        /// Edges leaving this node (a dependent reading it twice counts twice): an instance's
        /// initial count of waiters.
        let outEdges: Int
        let depth: Int
        /// The highest QoS rank among this node and everything downstream of it (priority inheritance).
        let qos: Int
        /// No node reads its output: its result is the point, so nobody-needs-it cancellation never applies.
        let isSink: Bool
        let fromCount: Int
        /// Names of the single references, in the order of their `singleIndex`.
        let singleReferenceNames: [String]
        let timeout: Double?
        /// Copied out of `spec` so the hot path reads them without copying the declaration.
        let id: String
        let stage: any Stage

        init(spec: NodeSpec, queue: Int, inputs: [Edge], dependents: [Int], outEdges: Int, depth: Int, qos: Int) {
            self.outEdges = outEdges
            self.spec = spec
            self.scope = spec.scope
            self.queue = queue
            self.isIO = spec.op.execution == .io
            self.inputs = inputs
            self.dependents = dependents
            self.depth = depth
            self.qos = qos
            self.isSink = dependents.isEmpty
            self.fromCount = spec.from.count
            self.singleReferenceNames = inputs.compactMap { edge in
                if case .reference(let name, false) = edge.slot { return name } else { return nil }
            }
            self.timeout = spec.timeout
            self.id = spec.id
            self.stage = spec.stage
        }
    }

    /// A node's scalars, copied out of `Node` so the hot path reads them without reference counting.
    struct Traits: Sendable {
        let queue: Int
        let isIO: Bool
        let isRun: Bool
        let depth: Int
        let qos: Int
        let inputCount: Int
        let outEdges: Int
        let fromCount: Int
        let referenceCount: Int
        let readsRunScope: Bool
        /// Every single reference comes from a run-scope node: one shared copy serves all items.
        let sharesRunReferences: Bool
        /// Some dependent takes this node's output when it succeeds; fan-ins, which collect it
        /// when the item ends, do not count.
        let deliversDownstream: Bool
        let timeout: Double?
    }

    let nodes: [Node]
    let traits: [Traits]
    let queues: [QueueSpec]
    /// Permits per queue.
    let limits: [Int]
    let itemNodes: [Int]
    let runNodes: [Int]
    /// Nodes that write a file, with their stages: their paths are claimed before they run.
    let writes: [(node: Int, stage: any ClaimsOutput)]
    /// Some fit may leave a copy out (`NodePlan.smallerCopies`): only then does the scheduler
    /// look for one, so the runs that cannot pay nothing for it.
    let omitsRepeats: Bool

    init(preset: Preset, cores: Int) {
        queues = preset.queues
        limits = preset.queues.map { spec in
            switch spec.concurrency {
            case .auto: return cores
            case .fixed(let n): return n
            }
        }
        let index = Dictionary(uniqueKeysWithValues: preset.nodes.enumerated().map { ($1.id, $0) })
        let specs = preset.nodes
        let queueOf = specs.map { spec in preset.queues.firstIndex { $0.name == spec.queue } ?? 0 }
        var edges: [[Edge]] = specs.map { spec in
            var singles = 0
            return spec.inputs.compactMap { input in
                guard let u = index[input.node] else { return nil }
                var edge = Edge(node: u, slot: input.slot, fromRunScope: false)
                if case .reference(_, false) = input.slot {
                    edge.singleIndex = singles
                    singles += 1
                }
                return edge
            }
        }
        var dependents = [[Int]](repeating: [], count: specs.count)
        var outEdges = [Int](repeating: 0, count: specs.count)
        var depth = [Int](repeating: 0, count: specs.count)
        // Nodes arrive upstream first, so one forward pass sets depth and one backward pass QoS.
        for n in specs.indices {
            for e in edges[n].indices {
                let u = edges[n][e].node
                edges[n][e].fromRunScope = specs[u].scope == .run && specs[n].scope == .item
                if !dependents[u].contains(n) { dependents[u].append(n) }
                outEdges[u] += 1
                depth[n] = max(depth[n], depth[u] + 1)
            }
        }
        var qos = [Int](repeating: 0, count: specs.count)
        for n in specs.indices.reversed() {
            qos[n] = max(preset.queues[queueOf[n]].qos.rank, dependents[n].map { qos[$0] }.max() ?? 0)
        }
        let nodes = specs.indices.map { n in
            Node(spec: specs[n], queue: queueOf[n], inputs: edges[n], dependents: dependents[n], outEdges: outEdges[n],
                 depth: depth[n], qos: qos[n])
        }
        self.nodes = nodes
        traits = nodes.map { node in
            Traits(queue: node.queue, isIO: node.isIO, isRun: node.scope == .run, depth: node.depth, qos: node.qos,
                   inputCount: node.inputs.count, outEdges: node.outEdges, fromCount: node.fromCount,
                   referenceCount: node.singleReferenceNames.count, readsRunScope: node.inputs.contains { $0.fromRunScope },
                   sharesRunReferences: node.scope == .item && !node.singleReferenceNames.isEmpty
                       && node.inputs.allSatisfy { $0.singleIndex < 0 || $0.fromRunScope },
                   deliversDownstream: node.dependents.contains { !(nodes[$0].scope == .run && node.scope == .item) },
                   timeout: node.timeout)
        }
        itemNodes = nodes.indices.filter { nodes[$0].scope == .item }
        runNodes = nodes.indices.filter { nodes[$0].scope == .run }
        writes = nodes.indices.compactMap { n in (nodes[n].stage as? any ClaimsOutput).map { (n, $0) } }
        omitsRepeats = specs.contains { !$0.plan.smallerCopies.isEmpty }
    }
}
