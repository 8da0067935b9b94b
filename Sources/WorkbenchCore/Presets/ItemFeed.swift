import Synchronization

/// Items handed to a run while it runs (`ItemSource.feed`): the live page feeds the items it
/// shows, in the order it wants them, and the run takes them as its window has room. The run
/// waits for more until the feed is closed, then ends once what it took has.
public final class ItemFeed: Sendable {
    private struct State {
        var waiting: [Item] = []
        var closed = false
        /// Indices handed to the run and not yet let go (`release`).
        var taken = Set<Int>()
        var listeners: [@Sendable () -> Void] = []
    }

    private let state = Mutex(State())
    private let onTake: @Sendable (Item) -> Void

    /// `onTake` hears of each item as the run takes it (under the run's lock: keep it short).
    public init(onTake: @escaping @Sendable (Item) -> Void = { _ in }) {
        self.onTake = onTake
    }

    /// Puts these items, in this order, in place of those not yet taken (the page scrolled);
    /// items already taken are left out. Ignored once closed.
    public func setWaiting(_ items: [Item]) {
        let changed = state.withLock { state -> Bool in
            guard !state.closed else { return false }
            state.waiting = items.filter { !state.taken.contains($0.index) }
            return !state.waiting.isEmpty
        }
        if changed { announce() }
    }

    /// Adds these items after those waiting (a watched folder's arrivals). Ignored once closed.
    public func append(_ items: [Item]) {
        let changed = state.withLock { state -> Bool in
            guard !state.closed, !items.isEmpty else { return false }
            state.waiting += items
            return true
        }
        if changed { announce() }
    }

    /// The item with this index left the run (it ended): it may be fed again.
    public func release(_ index: Int) {
        state.withLock { _ = $0.taken.remove(index) }
    }

    /// The indices of the items the run has taken and not yet let go.
    public var taken: Set<Int> { state.withLock { $0.taken } }

    /// No more items: the run ends once those it took have.
    public func close() {
        state.withLock { $0.closed = true }
        announce()
    }

    /// The next item for the run, if one waits.
    func take() -> Item? {
        let item = state.withLock { state -> Item? in
            guard !state.waiting.isEmpty else { return nil }
            let item = state.waiting.removeFirst()
            state.taken.insert(item.index)
            return item
        }
        if let item { onTake(item) }
        return item
    }

    /// Whether more items may come: not closed, or some still wait (added while the run looked).
    var isOpen: Bool { state.withLock { !$0.closed || !$0.waiting.isEmpty } }

    /// Calls `listener` whenever items arrive or the feed closes (outside the feed's lock: the
    /// run takes its own lock, and takes items under it).
    func listen(_ listener: @escaping @Sendable () -> Void) {
        state.withLock { $0.listeners.append(listener) }
    }

    private func announce() {
        for listener in state.withLock({ $0.listeners }) { listener() }
    }
}
