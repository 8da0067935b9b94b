import Foundation

/// A long-lived set of CPU workers that several runs share: the jobs of one program (the live
/// page's items, its previews, the run that gathers them) on one pool, each worker taking the
/// most urgent ready work across them by QoS — so a visible item raised to `userInteractive`
/// goes ahead of a preview, and a preview ahead of items lowered to `background`.
///
/// Hand it to runs through `RunOptions.pool`; a run without one starts threads of its own
/// (the command line's one run). I/O bodies go to the process's I/O threads either way.
public final class WorkerPool: @unchecked Sendable {
    // Safe: `runs`, `idle` and `closed` are read and written only with `lock` held; the rest is
    // immutable.
    let workerCount: Int
    private let lock = ConditionLock()
    private var runs: [RunScheduler] = []
    private var idle = 0
    private var closed = false
    /// Where the next scan starts, so runs of equal urgency take turns.
    private var turn = 0

    /// Starts `workers` threads (one per core by default); they sleep until a run has work.
    public init(workers: Int? = nil) throws(SchedulerError) {
        workerCount = max(1, workers ?? ProcessInfo.processInfo.activeProcessorCount)
        for index in 0..<workerCount {
            do {
                try DetachedThread.start(name: "workbench.pool.\(index)") { [self] in serve() }
            } catch {
                shutDown()
                throw error
            }
        }
    }

    /// Runs attached now (for tests and the page's status).
    public var runCount: Int { lock.withLock { runs.count } }

    /// Lets the workers go once they finish what they run; runs attached later start threads
    /// of their own.
    public func shutDown() {
        lock.withLock {
            closed = true
            lock.broadcast()
        }
    }

    /// A run starts taking the workers; false when the pool was shut down.
    func attach(_ run: RunScheduler) -> Bool {
        lock.withLock {
            guard !closed else { return false }
            runs.append(run)
            lock.broadcast()
            return true
        }
    }

    /// A run ended (called with the run's lock held: the order is always run, then pool).
    func detach(_ run: RunScheduler) {
        lock.withLock { runs.removeAll { $0 === run } }
    }

    /// A run filed CPU work (`PoolSeat`): wake a sleeping worker for it. Always under the
    /// lock: a worker scans the runs' hints and goes to sleep holding it, so the hint stored
    /// before this call is either seen by its scan or followed by this signal.
    func workFiled() {
        lock.withLock { if idle > 0 { lock.signal() } }
    }

    /// A worker: the run with the most urgent CPU work gets one batch, then the choice is made
    /// again; with none anywhere, it sleeps until a run files some.
    private func serve() {
        var workers: [Int: CPUWorker] = [:]
        while let run = next() {
            let serial = run.seat?.serial ?? -1
            if workers[serial] == nil {
                let live = lock.withLock { Set(runs.compactMap(\.seat?.serial)) }
                workers = workers.filter { live.contains($0.key) }
                workers[serial] = CPUWorker(scheduler: run, index: -1)
            }
            if workers[serial]?.serveOnce() == false {
                // The hint was stale; `serveOnce` has put it right, so the next scan moves on.
                continue
            }
        }
    }

    /// The run to serve next, or nil once the pool is shut down.
    private func next() -> RunScheduler? {
        lock.lock()
        defer { lock.unlock() }
        while !closed {
            var best: (run: RunScheduler, qos: Int)?
            for k in runs.indices {
                let run = runs[(turn + k) % runs.count]
                let qos = run.seat?.best ?? -1
                if qos >= 0 && qos > (best?.qos ?? -1) { best = (run, qos) }
            }
            if let best {
                turn &+= 1
                return best.run
            }
            idle += 1
            lock.wait()
            idle -= 1
        }
        return nil
    }
}
