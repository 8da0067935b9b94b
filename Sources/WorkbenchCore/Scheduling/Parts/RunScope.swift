/// What run-scope nodes made for everyone: their outputs (which items read), the reference
/// lists built once for nodes whose references all come from run scope, the file each run-scope
/// `write` put in place, and the failure behind each run-scope node that did not succeed.
struct RunScope {
    /// By node index; nil until the node succeeded.
    private(set) var outputs: [Payload?]
    /// For item node n, `inputs[inputRanges[n]]`: the run-scope nodes it reads.
    let inputs: RawTable<Int>
    let inputRanges: RawTable<(start: Int, end: Int)>
    /// By node: where each single reference comes from (`singleIndex`, run-scope node).
    private let referenceSources: [[(index: Int, node: Int)]]
    private let referenceCounts: [Int]
    /// Built on first use, then shared by every item.
    private var sharedReferences: [[Payload?]?]
    /// The first failure that ended each run-scope node (its own or upstream's).
    var failures: [Int: (node: String, message: String)] = [:]
    var files: [Int: (path: String, bytes: Int)] = [:]

    /// `runInputs[n]`: the run-scope nodes node n reads; `references[n]`: its single references
    /// as (`singleIndex`, source node), of which there are `referenceCounts[n]` slots.
    init(runInputs: [[Int]], references: [[(index: Int, node: Int)]], referenceCounts: [Int]) {
        outputs = Array(repeating: nil, count: runInputs.count)
        (inputs, inputRanges) = RawTable.flattening(runInputs)
        referenceSources = references
        self.referenceCounts = referenceCounts
        sharedReferences = Array(repeating: nil, count: runInputs.count)
    }

    init(plan: RunPlan) {
        self.init(runInputs: plan.nodes.map { $0.inputs.filter(\.fromRunScope).map(\.node) },
                  references: plan.nodes.map { $0.inputs.filter { $0.singleIndex >= 0 }.map { ($0.singleIndex, $0.node) } },
                  referenceCounts: plan.traits.map(\.referenceCount))
    }

    /// Frees the tables; called once by the owner's `deinit`.
    func free() {
        inputs.free()
        inputRanges.free()
    }

    mutating func succeeded(_ n: Int, with payload: Payload) { outputs[n] = payload }

    /// Run-scope write `n` put `file` in place; returns its bytes.
    mutating func wrote(_ file: OutputFile, node n: Int) -> Int {
        files[n] = (file.path, file.bytes)
        return file.bytes
    }

    /// The run-scope payloads node `n` refers to, built once; they all exist once it is ready.
    mutating func references(of n: Int) -> [Payload?] {
        if let built = sharedReferences[n] { return built }
        var references = [Payload?](repeating: nil, count: referenceCounts[n])
        for source in referenceSources[n] { references[source.index] = outputs[source.node] }
        sharedReferences[n] = references
        return references
    }

    /// The run-scope nodes whose outcome a user must see: files written, failures and skips.
    /// `state(n)`: the node's state at the end.
    func reports(_ plan: RunPlan, state: (Int) -> NodeState) -> [RunNodeReport] {
        plan.runNodes.compactMap { n in
            let state = state(n)
            if let file = files[n] {
                return RunNodeReport(node: plan.nodes[n].spec.id, state: state, output: file.path, bytesWritten: file.bytes)
            }
            guard state == .failed || state == .skipped else { return nil }
            return RunNodeReport(node: plan.nodes[n].spec.id, state: state, failure: failures[n])
        }
    }
}
