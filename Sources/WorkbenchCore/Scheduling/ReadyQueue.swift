/// A queue's ready nodes, most urgent first: a heap, with a fast lane for the common case.
///
/// Nodes usually become ready in priority order (item after item, at the same QoS and depth).
/// Those go to the back of a plain FIFO in O(1); only a node more urgent than the FIFO's last
/// entry goes to the heap. The head is the smaller of the two heads.
struct ReadyQueue: Sendable {
    private var lane: [ReadyKey] = []
    private var laneHead = 0
    private var heap = PriorityHeap<ReadyKey>()

    var isEmpty: Bool { laneHead == lane.count && heap.isEmpty }
    var count: Int { lane.count - laneHead + heap.count }

    mutating func push(_ key: ReadyKey) {
        if laneHead == lane.count || !(key < lane[lane.count - 1]) {
            lane.append(key)
        } else {
            heap.push(key)
        }
    }

    var peek: ReadyKey? {
        let fromLane = laneHead < lane.count ? lane[laneHead] : nil
        guard let fromHeap = heap.peek else { return fromLane }
        guard let fromLane else { return fromHeap }
        return fromHeap < fromLane ? fromHeap : fromLane
    }

    mutating func pop() -> ReadyKey? {
        let fromLane = laneHead < lane.count ? lane[laneHead] : nil
        if let fromHeap = heap.peek, fromLane.map({ fromHeap < $0 }) ?? true {
            return heap.pop()
        }
        guard let fromLane else { return nil }
        laneHead += 1
        if laneHead == lane.count {
            lane.removeAll(keepingCapacity: true)
            laneHead = 0
        } else if laneHead >= 1024 && laneHead * 2 >= lane.count {
            lane.removeFirst(laneHead)
            laneHead = 0
        }
        return fromLane
    }
}
