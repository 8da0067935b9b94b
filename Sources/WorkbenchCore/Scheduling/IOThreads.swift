import Foundation

/// Threads for I/O node bodies (downloads, reads, writes), so that waiting on the network or the
/// disk never holds a CPU worker. It grows to the number of I/O permits the queues hand out.
final class IOThreads: @unchecked Sendable {
    // Safe: `jobs` and `threads` are only touched with `lock` held.
    private let lock = ConditionLock()
    /// Jobs waiting from `head` on; a job taken is cleared at once, because what it captured (a
    /// file's encoded bytes, on their way to `write`) must go when the job is done, not when the
    /// list is next compacted.
    private var jobs: [(@Sendable (Int) -> Void)?] = []
    private var head = 0
    private var threads = 0
    private var idle = 0
    /// No I/O thread could be started and a caller is running the jobs itself.
    private var draining = false

    static let shared = IOThreads()

    /// Runs `job` on an I/O thread, starting a new thread if none is idle and fewer than `limit`
    /// exist; `job` gets the thread's number (for timelines). `wakes: false` only queues it: for
    /// a caller that is itself one of these threads and returns to take jobs right after.
    func run(limit: Int, wakes: Bool = true, _ job: @escaping @Sendable (Int) -> Void) {
        lock.lock()
        jobs.append(job)
        guard wakes else { return lock.unlock() }
        let start = idle == 0 && threads < max(1, limit)
        let number = threads
        if start { threads += 1 } else { lock.signal() }
        lock.unlock()
        guard start else { return }
        do {
            try DetachedThread.start(name: "workbench.io") { [self] in work(number) }
        } catch {
            // The system has no thread to give (address space or thread limits). With no I/O
            // thread at all, the caller does the I/O itself, slower but never stuck: a job
            // queued with no thread to take it was a run that hung for ever.
            lock.lock()
            threads -= 1
            let runHere = threads == 0 && !draining
            if runHere { draining = true }
            lock.unlock()
            if runHere { drain() }
        }
    }

    /// Runs the queued jobs on the calling thread while no I/O thread exists.
    private func drain() {
        lock.lock()
        while threads == 0, head < jobs.count {
            let job = jobs[head]
            jobs[head] = nil
            head += 1
            lock.unlock()
            job?(0)
            lock.lock()
        }
        draining = false
        lock.unlock()
    }

    private func work(_ number: Int) {
        lock.lock()
        while true {
            if head < jobs.count, let job = jobs[head] {
                jobs[head] = nil
                head += 1
                if head > 1024 && head * 2 > jobs.count {
                    jobs.removeFirst(head)
                    head = 0
                }
                lock.unlock()
                job(number)
                lock.lock()
            } else {
                idle += 1
                lock.wait()
                idle -= 1
            }
        }
    }
}
