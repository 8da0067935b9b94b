/// The items in flight: a fixed number of slots filled from the item list as slots free up.
///
/// It also addresses node instances. Slot `s` holds instances `s * nodeCount ..< (s + 1) * nodeCount`
/// (one per node of the plan) and the run-scope block follows the last slot, so an instance's
/// node, slot and item are arithmetic, never a lookup.
struct ItemWindow {
    /// One item's progress.
    struct Slot {
        var item: Item?
        /// The item's index, or -1 for a free slot (read often; cheaper than the item).
        var itemIndex = -1
        /// Item nodes not yet ended.
        var unfinished = 0
        /// The first failure, as the item's line and report name it.
        var failure: (node: String, message: String)?
        var files: [OutputFile] = []
        /// Files an incremental run left as they were.
        var upToDate: [OutputFile] = []
        /// The input's identity, once the node reading it has run (incremental runs).
        var identity: InputIdentity?
        var bytes = 0
        var cancelled = false
        /// When its first body started (seconds since the start), when item events are on.
        var started: Double?

        /// How the item ended, once every node has.
        var status: ItemReport.Status {
            if failure != nil { return .failed }
            if cancelled { return .cancelled }
            return files.isEmpty && !upToDate.isEmpty ? .upToDate : .succeeded
        }
    }

    /// What `admit` found.
    enum Admission {
        case item(Item, slot: Int)
        /// No free slot.
        case full
        /// The list has no more items; `justEnded` only the first time it is seen.
        case listEnded(justEnded: Bool)
        /// A feed has none now; more may come (`ItemFeed`).
        case waiting
    }

    let capacity: Int
    let nodeCount: Int
    /// The number of items, when the list knows it in advance.
    let total: Int?
    /// Emptied by a stop (`takeAll`), after which no instance has a slot any more.
    var slots: [Slot]
    private var free: [Int]
    private let cursor: ItemSource.Cursor
    private(set) var exhausted = false
    /// Set while the scheduler admits items, so an item ending during its own set-up does not
    /// start a nested round (`RunScheduler.fillWindow`).
    var filling = false
    /// Items in the window now, and admitted since the start.
    private(set) var live = 0
    private(set) var admitted = 0

    init(capacity: Int, nodeCount: Int, items: ItemSource) {
        self.capacity = capacity
        self.nodeCount = nodeCount
        slots = Array(repeating: Slot(), count: capacity)
        free = Array((0..<capacity).reversed())
        cursor = items.makeCursor()
        total = items.count
    }

    // MARK: - Addressing

    /// The instance of run-scope node `node`.
    @inline(__always) func runInstance(_ node: Int) -> Int { capacity * nodeCount + node }
    @inline(__always) func node(of instance: Int) -> Int { instance % nodeCount }
    @inline(__always) func slot(of instance: Int) -> Int? {
        let s = instance / nodeCount
        return s < capacity ? s : nil
    }
    /// The item an instance works for (`.run` for run-scope nodes and after a stop).
    func item(of instance: Int) -> Item {
        guard let s = slot(of: instance), s < slots.count else { return .run }
        return slots[s].item ?? .run
    }
    func itemIndex(of instance: Int) -> Int {
        let s = instance / nodeCount
        return s < capacity && s < slots.count ? slots[s].itemIndex : -1
    }
    /// The slot holding the item with this index, if it is in the window.
    func slot(holding index: Int) -> Int? { slots.firstIndex { $0.itemIndex == index && $0.item != nil } }

    // MARK: - Items coming and going

    /// Takes the next item into a free slot, counting `unfinished` nodes for it.
    /// Why the input list ended early, if it did (`ItemSource.Cursor.failure`).
    func listFailure() -> String? { cursor.failure() }

    /// For a feed: `arrived` is called when items arrive or the feed closes.
    func listen(_ arrived: @escaping @Sendable () -> Void) { cursor.listen?(arrived) }

    mutating func admit(unfinished: Int) -> Admission {
        guard let s = free.last else { return .full }
        guard let item = cursor.next() else {
            if cursor.isOpen() { return .waiting }
            defer { exhausted = true }
            return .listEnded(justEnded: !exhausted)
        }
        free.removeLast()
        slots[s].item = item
        slots[s].itemIndex = item.index
        slots[s].unfinished = unfinished
        live += 1
        admitted += 1
        return .item(item, slot: s)
    }

    /// Empties slot `s` field by field (keeping the files array's storage) and frees it.
    mutating func release(_ s: Int) {
        slots[s].item = nil
        slots[s].itemIndex = -1
        slots[s].failure = nil
        if !slots[s].files.isEmpty { slots[s].files.removeAll(keepingCapacity: true) }
        if !slots[s].upToDate.isEmpty { slots[s].upToDate.removeAll() }
        slots[s].identity = nil
        slots[s].bytes = 0
        slots[s].cancelled = false
        slots[s].started = nil
        live -= 1
        free.append(s)
    }

    // MARK: - What happens to an item

    /// Its first body started (recorded when item events are on).
    mutating func noteStarted(_ s: Int, at time: Double) {
        if slots[s].started == nil { slots[s].started = time }
    }

    /// A file its write `n` put in place (also after a stop, while the window still holds it),
    /// with the recipe the manifest keeps for it on an incremental run.
    mutating func record(_ file: OutputFile, write n: Int, slot s: Int, recipes: RecipeBook?) {
        guard s < slots.count else { return }
        var file = file
        if let recipes, let item = slots[s].item { file.recipe = recipes.recipe(write: n, item: item, identity: slots[s].identity) }
        slots[s].files.append(file)
        slots[s].bytes += file.bytes
    }

    /// Its first failure is the one its line and report name; later ones follow from it.
    mutating func blame(_ s: Int, node: String, _ message: String) {
        if slots[s].failure == nil { slots[s].failure = (node, message) }
    }

    /// A run-scope node the items read failed: every item in the window fails with it.
    mutating func blameEveryItem(node: String, _ message: String) {
        for s in slots.indices where slots[s].item != nil { blame(s, node: node, message) }
    }

    mutating func markCancelled(_ s: Int) { slots[s].cancelled = true }

    /// One of its nodes ended; true when that was its last.
    mutating func nodeEnded(_ s: Int, cancelled: Bool) -> Bool {
        if cancelled { slots[s].cancelled = true }
        slots[s].unfinished -= 1
        return slots[s].unfinished == 0
    }

    /// The input's identity, once read, and the files an incremental run leaves as they are.
    mutating func leaveOut(_ s: Int, identity: InputIdentity?, upToDate: [OutputFile]) {
        slots[s].identity = identity
        slots[s].upToDate += upToDate
    }

    /// The slots holding an item.
    var occupied: [Int] { slots.indices.filter { slots[$0].item != nil } }

    /// After a stop: every slot, for the leftovers report; the window is empty from here on.
    mutating func takeAll() -> [Slot] {
        defer { slots = [] }
        return slots
    }
}
