import Foundation

/// A run's clock: monotonic, in seconds since the run started.
struct RunClock {
    /// Monotonic nanoseconds at the start.
    let start = RunClock.nanos()

    static func nanos() -> UInt64 {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return UInt64(ts.tv_sec) * 1_000_000_000 + UInt64(ts.tv_nsec)
    }

    /// Seconds since the start.
    var now: Double { seconds(Self.nanos()) }

    /// Seconds since the start for a monotonic reading.
    func seconds(_ nanos: UInt64) -> Double { Double(nanos &- start) * 1e-9 }
}
