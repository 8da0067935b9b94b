extension RunScheduler {
    /// The payloads an instance has received so far.
    struct Payloads {
        var from: [Payload?] = []
        /// Single references, by the edge's `singleIndex`.
        var references: [Payload?] = []
        /// Fan-ins, by parameter name.
        var lists: [String: [Payload]] = [:]

        var isEmpty: Bool { from.isEmpty && references.isEmpty && lists.isEmpty }

        /// Why the image read through `from` was left out, when it was (`Payload.omitted`).
        var omitted: String? {
            for case .omitted(let reason)? in from { return reason }
            return nil
        }

        init(from: Int = 0, references: Int = 0) {
            if from > 0 { self.from = Array(repeating: nil, count: from) }
            if references > 0 { self.references = Array(repeating: nil, count: references) }
        }

        /// Takes an upstream's payload along `edge` (fan-ins are gathered whole, `FanIns`).
        mutating func receive(_ payload: Payload, along edge: RunPlan.Edge) {
            switch edge.slot {
            case .from(let i): from[i] = payload
            case .reference(_, false): references[edge.singleIndex] = payload
            case .reference: break
            }
        }
    }

    /// A body about to run: what was taken under the lock. The stage's inputs and context are
    /// built from it outside the lock (see `execute`).
    /// A class, so a job moves between the lists of a batch as one reference.
    final class Job: InputRecord, @unchecked Sendable {
        // Safe: built under the lock, then handed to exactly one thread at a time — the body's,
        // then whoever completes it — which alone sets `span`, `identity` and `freshness` before
        // handing it back under the lock.
        /// Where and when the body ran (recorded when node events are on).
        var span: NodeSpan?
        /// For the node that read the item's input on an incremental run: what it read
        /// (`StageContext.recordInput`), and so which of the item's files are up to date (`judged`).
        var identity: InputIdentity?
        var freshness: ItemFreshness?
        let instance: Int
        let node: Int
        let stamp: Int
        let attempt: Int
        let item: Item
        let held: Payloads
        let token: CancellationToken

        init(instance: Int, node: Int, stamp: Int, attempt: Int, item: Item, held: Payloads, token: CancellationToken) {
            self.instance = instance
            self.node = node
            self.stamp = stamp
            self.attempt = attempt
            self.item = item
            self.held = held
            self.token = token
        }

        func record(_ identity: InputIdentity) { self.identity = identity }
    }
}

extension RunScheduler.Job {
    /// The context this body's stage runs in; only an incremental run has an input's identity
    /// to record (`StageContext.recordInput`).
    func context(nodeID: String, timeout: Double?, shared: StageContext.Shared) -> StageContext {
        StageContext(item: item, nodeID: nodeID, cancellation: token, attempt: attempt, timeout: timeout, shared: shared,
                     inputRecord: shared.inputHistory != nil ? self : nil)
    }

    /// Runs the body; with `computesImage`, an image it returns is computed into memory to be kept.
    func run(stage: borrowing any Stage, id: String, referenceNames: [String], references: [Payload?],
             timeout: Double?, shared: StageContext.Shared, computesImage: Bool) -> Result<Payload, any Error> {
        // Cancelled between being picked and getting here: the body never starts.
        if token.isCancelled { return .failure(WorkbenchError.cancelled) }
        let inputs = StageInputs(fromSlots: held.from, referenceNames: referenceNames, referenceSlots: references, lists: held.lists)
        do {
            let payload = try stage.run(inputs, context: context(nodeID: id, timeout: timeout, shared: shared))
            if computesImage, case .image(let image) = payload { return .success(.image(try image.keptForReuse())) }
            return .success(payload)
        } catch {
            return .failure(error)
        }
    }

    /// For the node that read the item's input on an incremental run: which of the item's files
    /// are up to date, decided from the input's identity and the recipe book. On the thread that
    /// ran the body, outside the lock (it reads the manifest and looks at the files).
    func judged(_ result: Result<Payload, any Error>, recipes: RecipeBook?, nodeID: @autoclosure () -> String) -> Result<Payload, any Error> {
        guard let recipes, case .success(let payload) = result else { return result }
        switch payload {
        case .bytes:
            if let identity { freshness = recipes.freshness(of: item, identity: identity) }
        case .unreadInput(let recorded):
            let found = recipes.freshness(of: item, identity: recorded)
            // A file removed between the stage's look and this one: the input must be read after all.
            guard found.wholeItem else { return .failure(SchedulerError.inputChanged(node: nodeID())) }
            freshness = found
        case .image, .file, .omitted:
            break
        }
        return result
    }
}
