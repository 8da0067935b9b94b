import Foundation

/// Runs a workload on Foundation's OperationQueue: one queue per stage, `addDependency` for edges.
enum OperationQueueBaseline {
    static func measure(_ workload: Workload) -> Measurement {
        let body = Body(nanoseconds: workload.bodyNanoseconds)
        let cores = ProcessInfo.processInfo.activeProcessorCount
        let cpu0 = cpuSeconds(), t0 = nanos()
        var queues: [OperationQueue] = []
        func queue(_ limit: Int) -> OperationQueue {
            let q = OperationQueue()
            q.maxConcurrentOperationCount = limit
            queues.append(q)
            return q
        }
        switch workload {
        case .w1:
            let q = queue(cores)
            q.addOperations((0..<workload.tasks).map { _ in BlockOperation { body.run(lastStage: false) } }, waitUntilFinished: true)
        case .w2, .w4:
            let stages = Workload.chainLimits.map(queue)
            if workload == .w4 {
                body.cancel.withLock { $0 = { [stages] in for q in stages { q.cancelAllOperations() } } }
            }
            var perStage = [[Operation]](repeating: [], count: 5)
            for _ in 0..<Workload.chains {
                var previous: Operation?
                for s in 0..<5 {
                    let op = BlockOperation { body.run(lastStage: s == 4) }
                    if let previous { op.addDependency(previous) }
                    perStage[s].append(op)
                    previous = op
                }
            }
            for (s, ops) in perStage.enumerated() { stages[s].addOperations(ops, waitUntilFinished: false) }
            for q in stages { q.waitUntilAllOperationsAreFinished() }
        case .w3, .w3x10:
            let q = queue(cores)
            let root = BlockOperation { body.run(lastStage: false) }
            let sink = BlockOperation { body.run(lastStage: false) }
            var children: [Operation] = []
            for _ in 0..<workload.children {
                let child = BlockOperation { body.run(lastStage: false) }
                child.addDependency(root)
                sink.addDependency(child)
                children.append(child)
            }
            q.addOperations([root] + children + [sink], waitUntilFinished: true)
        }
        let t1 = nanos()
        let m = Measurement(workload, body: body, start: t0, end: t1, cpuAtStart: cpu0)
        withExtendedLifetime(queues) {}
        return m
    }
}
