import Synchronization

/// A run's place on a shared `WorkerPool`: what CPU work it has for the pool's workers (the QoS
/// rank of its most urgent, or -1), written under the run's lock and read by the workers
/// without it, and the serial number their copies of its nodes are kept by.
final class PoolSeat: Sendable {
    let pool: WorkerPool
    let serial = PoolSeat.serials.add(1, ordering: .relaxed).newValue
    private static let serials = Atomic<Int>(0)
    private let hint = Atomic<Int>(-1)

    init(_ pool: WorkerPool) { self.pool = pool }

    /// The QoS rank of the most urgent CPU work a worker could take now, or -1.
    var best: Int { hint.load(ordering: .acquiring) }

    /// CPU work of rank `qos` was filed; `wakes`: a sleeping worker is woken for it (not when the
    /// worker ending its batch takes it).
    func filed(qos: Int, wakes: Bool) {
        if qos > hint.load(ordering: .relaxed) { hint.store(qos, ordering: .releasing) }
        if wakes { pool.workFiled() }
    }

    /// What a worker could take now, said again (after a pick, a permit released, a resume).
    func reset(to best: Int) {
        hint.store(best, ordering: .releasing)
        if best >= 0 { pool.workFiled() }
    }
}
