import Testing
@testable import WorkbenchCore

@Suite struct ReadyQueuesTests {
    /// Files instance `id` as ready in queue `q`.
    static func file(_ id: Int, qos: Int = 1, item: Int, depth: Int = 0, queue q: Int, io: Bool = false,
                     in queues: inout ReadyQueues, _ instances: inout [NodeInstance], since: Double = 0) {
        instances[id].state = .ready
        instances[id].qos = qos
        instances[id].readySince = since
        instances[id].version = queues.nextVersion()
        queues.file(ReadyKey(qos: qos, item: item, depth: depth, instance: id, version: instances[id].version), queue: q, io: io)
    }

    @Test func acrossQueuesTheOrderIsQoSThenItemThenDepth() {
        var queues = ReadyQueues(limits: [1, 1, 1], agingInterval: 0, suspended: false)
        var instances = [NodeInstance](repeating: NodeInstance(), count: 8)
        // Queue 0: item 5 deep; queue 1: item 2 shallow; queue 2: item 2 deeper.
        Self.file(0, item: 5, depth: 4, queue: 0, in: &queues, &instances)
        Self.file(1, item: 2, depth: 0, queue: 1, in: &queues, &instances)
        Self.file(2, item: 2, depth: 1, queue: 2, in: &queues, &instances)
        #expect(queues.pickCPU(now: 0, instances: &instances)?.instances == [2])
        #expect(queues.pickCPU(now: 0, instances: &instances)?.instances == [1])
        #expect(queues.pickCPU(now: 0, instances: &instances)?.instances == [0])
        #expect(instances[0].state == .running)
        // Every queue's one permit is taken now.
        Self.file(3, qos: 3, item: 0, queue: 0, in: &queues, &instances)
        #expect(queues.pickCPU(now: 0, instances: &instances) == nil)
        queues.release(0)
        #expect(queues.pickCPU(now: 0, instances: &instances)?.instances == [3])
    }

    @Test func aHeadThatWaitedLongIsRaisedByAgeing() {
        var queues = ReadyQueues(limits: [1, 1], agingInterval: 1, suspended: false)
        var instances = [NodeInstance](repeating: NodeInstance(), count: 4)
        Self.file(0, qos: 1, item: 9, queue: 0, in: &queues, &instances, since: 0)
        Self.file(1, qos: 2, item: 0, queue: 1, in: &queues, &instances, since: 9.5)
        // At 10 s the qos-1 head has waited ten intervals: raised to 3 (the cap), above qos 2.
        #expect(queues.pickCPU(now: 10, instances: &instances)?.instances == [0])
        #expect(queues.pickCPU(now: 10, instances: &instances)?.instances == [1])
    }

    @Test func aBatchKeepsToOneQoSAndSkipsStaleEntries() {
        var queues = ReadyQueues(limits: [1], agingInterval: 0, suspended: false)
        var instances = [NodeInstance](repeating: NodeInstance(), count: 6)
        // Short bodies make long batches: a run of one-body batches of a microsecond each first.
        for _ in 0..<30 {
            Self.file(5, qos: 3, item: 0, queue: 0, in: &queues, &instances)
            #expect(queues.pickCPU(now: 0, instances: &instances)?.instances == [5])
            queues.release(0, perBody: 1e-6)
        }
        for id in 0..<4 { Self.file(id, item: id, queue: 0, in: &queues, &instances) }
        Self.file(4, qos: 0, item: 4, queue: 0, in: &queues, &instances)
        // Instance 1 re-filed at a higher QoS: its first entry is stale.
        Self.file(1, qos: 3, item: 1, queue: 0, in: &queues, &instances)
        // Instance 2 was cancelled while ready.
        instances[2].state = .cancelled
        #expect(queues.pickCPU(now: 0, instances: &instances)?.instances == [1])
        queues.release(0)
        #expect(queues.pickCPU(now: 0, instances: &instances)?.instances == [0, 3])
        queues.release(0)
        #expect(queues.pickCPU(now: 0, instances: &instances)?.instances == [4])
    }

    @Test func ioTakesAPermitPerBodyAndSuspensionHoldsEverything() {
        var queues = ReadyQueues(limits: [2], agingInterval: 0, suspended: true)
        var instances = [NodeInstance](repeating: NodeInstance(), count: 4)
        for id in 0..<3 { Self.file(id, item: id, queue: 0, io: true, in: &queues, &instances) }
        #expect(queues.nextIO(instances) == nil)
        queues.suspended = false
        queues.setSuspended(true, queues: [0])
        #expect(queues.nextIO(instances) == nil)
        queues.setSuspended(false, queues: [0])
        #expect(queues.nextIO(instances) == 0 && queues.nextIO(instances) == 1 && queues.nextIO(instances) == nil)
        queues.release(0)
        #expect(queues.nextIO(instances) == 2)
        let dropped = queues.dropAll()
        #expect(dropped.count == 1 && queues.queues[0].io.isEmpty)
    }
}
