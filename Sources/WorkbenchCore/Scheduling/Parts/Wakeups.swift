/// Which sleeping CPU worker, if any, new ready work wakes: one of the run's own, or one of a
/// shared scheduler's (through the run's `PoolSeat`). A worker ending its batch takes the next
/// CPU work itself, so the first it makes ready wakes nobody: waking another for it would cost
/// a thread switch and the lock twice.
struct Wakeups {
    /// The run's place on a shared scheduler, or nil for threads of its own.
    let seat: PoolSeat?
    /// Workers asleep on the lock's condition.
    var idle = 0
    /// Set while a worker that goes straight back for work ends its bodies.
    var endingWorkerTakesOne = false

    init(seat: PoolSeat? = nil) { self.seat = seat }

    /// CPU work of QoS rank `qos` was filed: a sleeping worker is woken for it (on `lock`'s
    /// condition, or the scheduler's), unless the worker ending its batch takes it.
    @inline(__always)
    mutating func cpuWorkFiled(qos: Int, lock: ConditionLock) {
        if let seat {
            seat.filed(qos: qos, wakes: !takenByEndingWorker())
        } else if wakesOne() {
            lock.signal()
        }
    }

    /// Whether the worker ending its batch takes the CPU work just made ready (once).
    mutating func takenByEndingWorker() -> Bool {
        defer { endingWorkerTakesOne = false }
        return endingWorkerTakesOne
    }

    /// Whether CPU work just made ready should wake a sleeping worker.
    mutating func wakesOne() -> Bool { !takenByEndingWorker() && idle > 0 }
}
