import Dispatch
import Foundation
import Synchronization

/// Threads that run blocking node bodies, most urgent job first.
///
/// Blocking C calls (libvips evaluation, libcurl transfers, file writes) must not run on Swift
/// concurrency's cooperative pool, which has only as many threads as cores. `cpu` has one thread
/// per core; `io` grows to the number of I/O permits the queues hand out.
final class WorkerPool: Sendable {
    /// Orders jobs: higher QoS first, then earlier items, then nodes further down the chain.
    struct Priority: Comparable, Sendable {
        let qos: Int
        let item: Int
        let depth: Int
        let sequence: Int

        static func < (a: Priority, b: Priority) -> Bool {
            if a.qos != b.qos { return a.qos > b.qos }
            if a.item != b.item { return a.item < b.item }
            if a.depth != b.depth { return a.depth > b.depth }
            return a.sequence < b.sequence
        }
    }

    private struct Job: Comparable, Sendable {
        let priority: Priority
        let body: @Sendable () -> Void
        static func < (a: Job, b: Job) -> Bool { a.priority < b.priority }
        static func == (a: Job, b: Job) -> Bool { a.priority == b.priority }
    }

    private struct State: Sendable {
        var jobs = PriorityHeap<Job>()
        var threads = 0
    }

    static let cpu = WorkerPool(name: "workbench.cpu", threads: ProcessInfo.processInfo.activeProcessorCount)
    static let io = WorkerPool(name: "workbench.io", threads: 0)

    private let name: String
    private let state = Mutex(State())
    private let available = DispatchSemaphore(value: 0)

    private init(name: String, threads: Int) {
        self.name = name
        ensureThreads(threads)
    }

    /// Starts threads until there are at least `count` (capped at 256).
    func ensureThreads(_ count: Int) {
        let toStart = state.withLock { state -> Int in
            let target = min(count, 256)
            defer { state.threads = max(state.threads, target) }
            return max(0, target - state.threads)
        }
        for index in 0..<toStart {
            let thread = Thread { [self] in self.work() }
            thread.name = "\(name).\(index)"
            thread.start()
        }
    }

    func submit(_ priority: Priority, _ body: @escaping @Sendable () -> Void) {
        state.withLock { $0.jobs.push(Job(priority: priority, body: body)) }
        available.signal()
    }

    private func work() {
        while true {
            available.wait()
            guard let job = state.withLock({ $0.jobs.pop() }) else { continue }
            job.body()
        }
    }
}
