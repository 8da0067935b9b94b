/// Which sleeping CPU worker, if any, new ready work wakes. A worker ending its batch takes the
/// next CPU work itself, so the first it makes ready wakes nobody: waking another for it would
/// cost a thread switch and the lock twice.
struct Wakeups {
    /// Workers asleep on the lock's condition.
    var idle = 0
    /// Set while a worker that goes straight back for work ends its bodies.
    var endingWorkerTakesOne = false

    /// Whether the worker ending its batch takes the CPU work just made ready (once).
    mutating func takenByEndingWorker() -> Bool {
        defer { endingWorkerTakesOne = false }
        return endingWorkerTakesOne
    }

    /// Whether CPU work just made ready should wake a sleeping worker.
    mutating func wakesOne() -> Bool {
        if endingWorkerTakesOne {
            endingWorkerTakesOne = false
            return false
        }
        return idle > 0
    }
}
