/// The events a run reports, at the detail its options ask for: its start, every node state
/// change (`.nodes`), each item's end, and its end. Immutable; the scheduler calls it with its lock
/// held, except for the leftovers of a stop.
struct RunEvents {
    let pump: EventPump?
    /// Node state changes are reported (read on every transition).
    let nodes: Bool
    /// Item ends are reported.
    let items: Bool
    private let plan: RunPlan
    /// Node id → plan index, the order an item's files are reported in.
    private let writeOrder: [String: Int]

    init(_ pump: EventPump?, detail: RunOptions.EventDetail, plan: RunPlan) {
        self.pump = pump
        nodes = detail == .nodes && pump != nil
        items = detail != .none && pump != nil
        self.plan = plan
        writeOrder = Dictionary(plan.nodes.indices.map { (plan.nodes[$0].id, $0) }, uniquingKeysWith: { first, _ in first })
    }

    /// For stages that report their own progress (`--events nodes` only).
    var progress: (@Sendable (ProgressEvent) -> Void)? {
        guard nodes, let pump else { return nil }
        return { event in pump.yield(.progress(event)) }
    }

    func started(items total: Int?) {
        if items { pump?.yield(.runStarted(items: total, nodesPerItem: plan.itemNodes.count)) }
    }

    func node(_ n: Int, of item: Item, _ state: NodeState, time: Double, attempt: Int, message: String?, span: NodeSpan? = nil) {
        let node = plan.nodes[n]
        pump?.yield(.node(NodeEvent(item: item, node: node.spec.id, queue: node.spec.queue, state: state,
                                            time: time, attempt: max(1, attempt), message: message, span: span)))
    }

    func itemFinished(_ slot: borrowing ItemWindow.Slot, as status: ItemReport.Status, time: @autoclosure () -> Double, notes: ItemNotes) {
        guard items, let item = slot.item else { return }
        let (files, upToDate) = (inGraphOrder(slot.files), inGraphOrder(slot.upToDate))
        // Copies not made are recorded like files (the manifest keeps them) but reported apart;
        // looked for without building anything, as nearly every item has none.
        let anyNotMade = files.contains { $0.notMade != nil } || upToDate.contains { $0.notMade != nil }
        let notMade = anyNotMade ? (files + upToDate).filter { $0.notMade != nil } : []
        pump?.yield(.itemFinished(ItemReport(
            item: item, status: status, files: notMade.isEmpty ? files : files.filter { $0.notMade == nil },
            upToDate: notMade.isEmpty ? upToDate : upToDate.filter { $0.notMade == nil },
            bytesWritten: slot.bytes, failure: slot.failure, duration: slot.started.map { time() - $0 } ?? 0,
            warnings: notes.warnings, identity: slot.identity, decodes: notes.decodes, notes: notes.notes, notMade: notMade,
            measurements: notes.measurements)))
    }

    /// After a stop: the items and nodes left in the window end as cancelled (or failed, for
    /// items that had failed). `runBase` is the first run-scope instance.
    func leftovers(_ rest: (slots: [ItemWindow.Slot], instances: [NodeInstance]), runBase: Int, time: Double,
                   notes: (Int) -> ItemNotes) {
        guard items else { return }
        for (s, slot) in rest.slots.enumerated() {
            guard let item = slot.item else { continue }
            if nodes {
                for n in plan.itemNodes where !rest.instances[s * plan.nodes.count + n].state.isTerminal {
                    node(n, of: item, .cancelled, time: time, attempt: rest.instances[s * plan.nodes.count + n].attempt, message: nil)
                }
            }
            itemFinished(slot, as: slot.failure != nil ? .failed : .cancelled, time: time, notes: notes(item.index))
        }
        if nodes {
            for n in plan.runNodes where !rest.instances[runBase + n].state.isTerminal {
                node(n, of: .run, .cancelled, time: time, attempt: 1, message: nil)
            }
        }
    }

    /// The run's end: after a stop, what it left in the window ends as cancelled (`leftovers`),
    /// then the summary.
    func ended(_ summary: RunSummary, leftovers rest: (slots: [ItemWindow.Slot], instances: [NodeInstance])?, runBase: Int,
               time: @autoclosure () -> Double, notes: (Int) -> ItemNotes) {
        if let rest { leftovers(rest, runBase: runBase, time: time(), notes: notes) }
        finished(summary)
    }

    func finished(_ summary: RunSummary) {
        pump?.yield(.runFinished(summary))
        pump?.finish()
    }

    /// An item's files in the order of the preset's `write` nodes, not the order they finished in,
    /// so the line for an item and its report read the same on every run.
    func inGraphOrder(_ files: [OutputFile]) -> [OutputFile] {
        guard files.count > 1 else { return files }
        return files.sorted { (writeOrder[$0.node] ?? .max, $0.path) < (writeOrder[$1.node] ?? .max, $1.path) }
    }
}
