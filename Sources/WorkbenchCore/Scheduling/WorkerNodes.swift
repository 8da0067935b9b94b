/// One CPU worker's private copies of what running a body reads from each node.
///
/// Two workers start bodies at the same moment. Had they built every body's inputs and context
/// from the plan's shared objects, each body would retain and release those objects, and the
/// atomic writes would bounce their cache lines between the cores on every task. A worker's own
/// copies are reference-counted by that worker alone.
struct WorkerNodes {
    private struct Entry {
        let stage: any Stage
        let id: String
        let referenceNames: [String]
        let timeout: Double?
        let computesImage: Bool
        /// The run-scope references every item shares (`Traits.sharesRunReferences`), copied once
        /// they exist.
        var sharedReferences: [Payload?]?
    }

    private var entries: [Entry]
    private let shared: StageContext.Shared

    init(plan: RunPlan, shared: StageContext.Shared, computesKeptImages: [Bool]) {
        entries = plan.nodes.indices.map { n in
            let node = plan.nodes[n]
            return Entry(stage: node.stage, id: Self.ownCopy(node.id), referenceNames: node.singleReferenceNames.map(Self.ownCopy),
                         timeout: node.timeout, computesImage: computesKeptImages[n], sharedReferences: nil)
        }
        self.shared = StageContext.Shared(output: shared.output, logger: shared.logger, baseDirectory: shared.baseDirectory,
                                          sharing: shared)
    }

    /// Whether node `n`'s shared references still have to be copied in (see `adoptSharedReferences`).
    func needsSharedReferences(_ n: Int) -> Bool { entries[n].sharedReferences == nil }

    /// Keeps a copy of node `n`'s shared references in a buffer of this worker's own.
    mutating func adoptSharedReferences(_ n: Int, _ references: [Payload?]) {
        var own: [Payload?] = []
        own.reserveCapacity(references.count)
        own.append(contentsOf: references)
        entries[n].sharedReferences = own
    }

    /// Runs the job's body with this worker's copies.
    func run(_ job: RunScheduler.Job) -> Result<Payload, any Error> {
        job.run(stage: entries[job.node].stage, id: entries[job.node].id,
                       referenceNames: entries[job.node].referenceNames,
                       references: entries[job.node].sharedReferences ?? job.held.references,
                       timeout: entries[job.node].timeout, shared: shared, computesImage: entries[job.node].computesImage)
    }

    /// A string with storage of its own (a plain copy would share the original's buffer).
    private static func ownCopy(_ string: String) -> String { String(decoding: Array(string.utf8), as: UTF8.self) }
}
