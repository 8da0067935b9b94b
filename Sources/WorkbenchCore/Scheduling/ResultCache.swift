import Synchronization

/// What nodes made, kept across runs under their recipe (the node's op and parameters and
/// those of every node above it, and the item's input), so that a later run takes a result
/// whose recipe it shares instead of making it again: it starts from the first node whose
/// parameters changed. The live workbench gives its item runs one for run-scope results (a
/// watermark's logo read and decoded once per session) and its previews one for every node
/// (changing the encoder does not redo the filters).
///
/// An item's input is known by its name only: keep results of every node only for inputs that
/// do not change while the cache lives (the previews' screen-size copies). Written files,
/// sheets gathering every item and what is made from them are never kept. Least recently used
/// results go first once their pixels and bytes pass the budget.
public final class ResultCache: Sendable {
    /// Which nodes' results are kept.
    public enum Reach: Sendable {
        /// Run-scope nodes only (a logo read once for many runs of one item each).
        case runScope
        /// Every node that does not write a file; images are kept computed into memory.
        case everyNode
    }

    public let reach: Reach
    /// At most this many bytes of pixels and encoded bytes are kept.
    public let budget: Int

    private struct Entry {
        let payload: Payload
        let bytes: Int
        var used: Int
    }

    private struct State {
        var entries: [String: Entry] = [:]
        var bytes = 0
        var clock = 0
        var taken = 0
    }

    private let state = Mutex(State())

    public init(reach: Reach, budget: Int = 256 << 20) {
        self.reach = reach
        self.budget = budget
    }

    /// Results taken instead of made, and results kept now.
    public var counts: (taken: Int, kept: Int) { state.withLock { ($0.taken, $0.entries.count) } }

    func payload(for key: String) -> Payload? {
        state.withLock { state in
            guard var entry = state.entries[key] else { return nil }
            state.clock += 1
            entry.used = state.clock
            state.entries[key] = entry
            state.taken += 1
            return entry.payload
        }
    }

    func keep(_ payload: Payload, for key: String) {
        let bytes: Int
        switch payload {
        // A written file is the run's own result, not something to hand to another run.
        case .file, .unreadInput, .omitted: return
        case .bytes(let data): bytes = data.data.count
        case .image(let image): bytes = image.pixelBytes
        }
        guard bytes <= budget else { return }
        state.withLock { state in
            state.clock += 1
            if let old = state.entries[key] { state.bytes -= old.bytes }
            state.entries[key] = Entry(payload: payload, bytes: bytes, used: state.clock)
            state.bytes += bytes
            while state.bytes > budget, let oldest = state.entries.min(by: { $0.value.used < $1.value.used }) {
                state.bytes -= oldest.value.bytes
                state.entries[oldest.key] = nil
            }
        }
    }
}
