extension RunEngine {
    /// The payloads an instance has received so far.
    struct Payloads {
        var from: [Payload?] = []
        /// Single references, by the edge's `singleIndex`.
        var references: [Payload?] = []
        /// Fan-ins, by parameter name.
        var lists: [String: [Payload]] = [:]

        var isEmpty: Bool { from.isEmpty && references.isEmpty && lists.isEmpty }

        init(from: Int = 0, references: Int = 0) {
            if from > 0 { self.from = Array(repeating: nil, count: from) }
            if references > 0 { self.references = Array(repeating: nil, count: references) }
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
        /// (`StageContext.recordInput`), and so which of the item's files are up to date (`judge`).
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
