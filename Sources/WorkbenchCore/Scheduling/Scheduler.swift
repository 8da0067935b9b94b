import Foundation
import Logging
import Synchronization

/// Runs the preset graph once per item on per-stage queues with concurrency limits.
///
/// A node instance becomes ready when its last upstream instance succeeds and waits in its
/// queue's ready heap (earlier items first, deeper nodes first). A queue hands out as many
/// permits as its concurrency; a finished node returns its permit and pulls the next ready node,
/// so no thread ever waits for a permit. A failure skips everything downstream of it in that
/// item; cancellation drops all waiting work and lets running bodies stop at their next check.
final class Scheduler: Sendable {
    private struct QueueState: Sendable {
        let spec: QueueSpec
        let limit: Int
        var running = 0
        var ready = PriorityHeap<ReadyNode>()
    }

    private struct ReadyNode: Comparable, Sendable {
        let priority: WorkerPool.Priority
        let instance: Int
        static func < (a: ReadyNode, b: ReadyNode) -> Bool { a.priority < b.priority }
        static func == (a: ReadyNode, b: ReadyNode) -> Bool { a.priority == b.priority }
    }

    private struct ItemState: Sendable {
        var unfinished: Int
        var started: Double?
        var outputs: [String] = []
        var bytesWritten = 0
        var failure: (node: String, message: String)?
        var cancelled = false
    }

    private struct State: Sendable {
        var queues: [QueueState]
        var nodeState: [NodeState]
        var remaining: [Int]
        var inputs: [[Payload?]]
        var items: [ItemState]
        var unfinishedItems: Int
        var succeeded = 0, failed = 0, cancelled = 0, bytesWritten = 0
        var sequence = 0
    }

    /// Events wait here, in transition order, until one thread at a time delivers them outside
    /// the state lock (so a callback may cancel the run or inspect anything without deadlock).
    private struct Outbox: Sendable {
        var events: [RunEvent] = []
        var delivering = false
        var completion: (@Sendable (RunSummary) -> Void)?
    }

    private let nodes: [NodeSpec]
    private let items: [Item]
    /// For node index n: the downstream nodes and which input slot each fills.
    private let dependents: [[(node: Int, slot: Int)]]
    private let depth: [Int]
    private let queueOfNode: [Int]
    /// The QoS rank of each node's queue, by node index.
    private let qosOfNode: [Int]
    private let output: OutputRoot
    private let token: CancellationToken
    private let logger: Logger
    private let onEvent: @Sendable (RunEvent) -> Void
    private let clock = ContinuousClock()
    private let startTime: ContinuousClock.Instant
    private let state: Mutex<State>
    private let outbox = Mutex(Outbox())

    init(nodes: [NodeSpec], queues: [QueueSpec], items: [Item], output: OutputRoot, token: CancellationToken,
         logger: Logger, onEvent: @escaping @Sendable (RunEvent) -> Void) {
        self.nodes = nodes
        self.items = items
        self.output = output
        self.token = token
        self.logger = logger
        self.onEvent = onEvent
        self.startTime = clock.now

        let index = Dictionary(uniqueKeysWithValues: nodes.enumerated().map { ($1.id, $0) })
        var dependents = [[(node: Int, slot: Int)]](repeating: [], count: nodes.count)
        var depth = [Int](repeating: 0, count: nodes.count)
        for (n, node) in nodes.enumerated() {
            for (slot, upstream) in node.from.enumerated() {
                guard let u = index[upstream] else { continue }
                dependents[u].append((n, slot))
                depth[n] = max(depth[n], depth[u] + 1)
            }
        }
        self.dependents = dependents
        self.depth = depth
        let cores = ProcessInfo.processInfo.activeProcessorCount
        let queueStates = queues.map { spec -> QueueState in
            switch spec.concurrency {
            case .auto: return QueueState(spec: spec, limit: cores)
            case .fixed(let n): return QueueState(spec: spec, limit: n)
            }
        }
        self.queueOfNode = nodes.map { node in queues.firstIndex { $0.name == node.queue } ?? 0 }
        self.qosOfNode = queueOfNode.map { queues[$0].qos.rank }

        let count = nodes.count * items.count
        var remaining = [Int](repeating: 0, count: count)
        var inputs = [[Payload?]](repeating: [], count: count)
        for i in 0..<items.count {
            for (n, node) in nodes.enumerated() {
                remaining[i * nodes.count + n] = node.from.count
                inputs[i * nodes.count + n] = Array(repeating: nil, count: node.from.count)
            }
        }
        state = Mutex(State(
            queues: queueStates, nodeState: Array(repeating: .pending, count: count), remaining: remaining,
            inputs: inputs, items: Array(repeating: ItemState(unfinished: nodes.count), count: items.count),
            unfinishedItems: items.count))

        // Threads for I/O bodies: as many as the I/O permits that can be out at once.
        var ioPermits = 0
        for (q, queue) in queueStates.enumerated()
        where nodes.indices.contains(where: { queueOfNode[$0] == q && nodes[$0].op.execution == .io }) {
            ioPermits += queue.limit
        }
        WorkerPool.io.ensureThreads(ioPermits)
    }

    private var now: Double {
        let d = clock.now - startTime
        return Double(d.components.seconds) + Double(d.components.attoseconds) * 1e-18
    }

    /// Starts the run; `completion` is called once, after the `runFinished` event, when every node ended.
    func start(completion: @escaping @Sendable (RunSummary) -> Void) {
        outbox.withLock { $0.completion = completion }
        let jobs = state.withLock { state -> [Int] in
            post(.runStarted(items: items.count, nodesPerItem: nodes.count))
            if items.isEmpty || nodes.isEmpty {
                post(.runFinished(summary(state)))
                return []
            }
            for i in 0..<items.count {
                for n in nodes.indices where nodes[n].from.isEmpty {
                    makeReady(i * nodes.count + n, &state)
                }
            }
            var jobs: [Int] = []
            for q in state.queues.indices { jobs += pump(q, &state) }
            return jobs
        }
        deliver()
        token.onCancel { [self] in cancelWaiting() }
        submit(jobs)
    }

    /// Queues an event for delivery; called with the state locked so order follows transitions.
    private func post(_ event: RunEvent) {
        outbox.withLock { $0.events.append(event) }
    }

    /// Delivers queued events unless another thread is already doing so.
    private func deliver() {
        while true {
            let batch = outbox.withLock { outbox -> [RunEvent]? in
                guard !outbox.delivering, !outbox.events.isEmpty else { return nil }
                outbox.delivering = true
                defer { outbox.events = [] }
                return outbox.events
            }
            guard let batch else { return }
            for event in batch {
                onEvent(event)
                if case .runFinished(let summary) = event, let completion = outbox.withLock({ $0.completion }) {
                    completion(summary)
                }
            }
            outbox.withLock { $0.delivering = false }
        }
    }

    // MARK: - Transitions (all called with the state locked)

    private func makeReady(_ instance: Int, _ state: inout State) {
        let n = instance % nodes.count, i = instance / nodes.count
        state.nodeState[instance] = .ready
        emit(instance, .ready)
        let q = queueOfNode[n]
        state.sequence += 1
        let priority = WorkerPool.Priority(qos: qosOfNode[n], item: i, depth: depth[n], sequence: state.sequence)
        state.queues[q].ready.push(ReadyNode(priority: priority, instance: instance))
    }

    /// Hands out free permits of queue `q`; returns the instances to start.
    private func pump(_ q: Int, _ state: inout State) -> [Int] {
        var started: [Int] = []
        while state.queues[q].running < state.queues[q].limit, let next = state.queues[q].ready.pop() {
            state.queues[q].running += 1
            state.nodeState[next.instance] = .running
            let i = next.instance / nodes.count
            if state.items[i].started == nil { state.items[i].started = now }
            emit(next.instance, .running)
            started.append(next.instance)
        }
        return started
    }

    private func finish(_ instance: Int, as result: NodeState, message: String? = nil, _ state: inout State) {
        state.nodeState[instance] = result
        emit(instance, result, message: message)
        let i = instance / nodes.count
        state.items[i].unfinished -= 1
        guard state.items[i].unfinished == 0 else { return }
        let item = state.items[i]
        let status: ItemReport.Status = item.failure != nil ? .failed : item.cancelled ? .cancelled : .succeeded
        switch status {
        case .succeeded: state.succeeded += 1
        case .failed: state.failed += 1
        case .cancelled: state.cancelled += 1
        }
        state.bytesWritten += item.bytesWritten
        post(.itemFinished(ItemReport(
            item: items[i], status: status, outputs: item.outputs, bytesWritten: item.bytesWritten,
            failure: item.failure, duration: item.started.map { now - $0 } ?? 0)))
        state.unfinishedItems -= 1
        if state.unfinishedItems == 0 { post(.runFinished(summary(state))) }
    }

    /// Marks every not-yet-ended node downstream of `instance` as skipped.
    private func skipDownstream(of instance: Int, cause: String, _ state: inout State) {
        let base = instance - instance % nodes.count
        var stack = dependents[instance % nodes.count].map { base + $0.node }
        while let next = stack.popLast() {
            guard state.nodeState[next] == .pending else { continue }
            finish(next, as: .skipped, message: "skipped because \"\(cause)\" failed", &state)
            stack += dependents[next % nodes.count].map { base + $0.node }
        }
    }

    private func summary(_ state: State) -> RunSummary {
        RunSummary(items: items.count, succeeded: state.succeeded, failed: state.failed, cancelled: state.cancelled,
                   bytesWritten: state.bytesWritten, duration: now, wasCancelled: token.isCancelled)
    }

    private func emit(_ instance: Int, _ nodeState: NodeState, message: String? = nil) {
        let node = nodes[instance % nodes.count]
        post(.node(NodeEvent(item: items[instance / nodes.count], node: node.id, queue: node.queue,
                                state: nodeState, time: now, message: message)))
    }

    // MARK: - Running bodies

    private func submit(_ instances: [Int]) {
        for instance in instances {
            let n = instance % nodes.count
            let pool = nodes[n].op.execution == .cpu ? WorkerPool.cpu : WorkerPool.io
            let priority = WorkerPool.Priority(qos: qosOfNode[n], item: instance / nodes.count, depth: depth[n],
                                               sequence: instance)
            pool.submit(priority) { [self] in execute(instance) }
        }
    }

    private func execute(_ instance: Int) {
        let n = instance % nodes.count, i = instance / nodes.count
        let node = nodes[n]
        let inputs = state.withLock { state -> [Payload] in
            defer { state.inputs[instance] = [] }
            return state.inputs[instance].compactMap { $0 }
        }
        var outcome: Result<Payload, any Error>
        if token.isCancelled {
            outcome = .failure(WorkbenchError.cancelled)
        } else {
            let context = StageContext(item: items[i], nodeID: node.id, cancellation: token, output: output,
                                       logger: logger)
            do {
                outcome = .success(try node.stage.run(inputs, context: context))
            } catch {
                outcome = .failure(error)
            }
        }
        if case .failure(let error) = outcome {
            logger.debug("node failed", metadata: ["item": "\(items[i].name)", "node": "\(node.id)", "error": "\(error)"])
        }
        let toStart = state.withLock { state -> [Int] in
            let q = queueOfNode[n]
            state.queues[q].running -= 1
            switch outcome {
            case .success(let payload):
                if case .file(let path, let count) = payload {
                    state.items[i].outputs.append(path)
                    state.items[i].bytesWritten += count
                }
                finish(instance, as: .succeeded, &state)
                for (d, slot) in dependents[n] {
                    let downstream = i * nodes.count + d
                    guard state.nodeState[downstream] == .pending else { continue }
                    state.inputs[downstream][slot] = payload
                    state.remaining[downstream] -= 1
                    if state.remaining[downstream] == 0 { makeReady(downstream, &state) }
                }
            case .failure(let error):
                // Once the run is cancelled, a body that fails was most likely stopped by it.
                if token.isCancelled {
                    state.items[i].cancelled = true
                    finish(instance, as: .cancelled, &state)
                } else {
                    let message = String(describing: error)
                    if state.items[i].failure == nil { state.items[i].failure = (node.id, message) }
                    finish(instance, as: .failed, message: message, &state)
                }
                skipDownstream(of: instance, cause: node.id, &state)
            }
            var toStart: [Int] = []
            for queue in state.queues.indices { toStart += pump(queue, &state) }
            return toStart
        }
        deliver()
        submit(toStart)
    }

    /// Drops every node that has not started; running bodies see the token and stop themselves.
    private func cancelWaiting() {
        state.withLock { state in
            for q in state.queues.indices { _ = state.queues[q].ready.removeAll() }
            for instance in state.nodeState.indices
            where state.nodeState[instance] == .pending || state.nodeState[instance] == .ready {
                state.items[instance / nodes.count].cancelled = true
                state.inputs[instance] = []
                finish(instance, as: .cancelled, &state)
            }
        }
        deliver()
    }
}
