import Foundation
import Glibc
import Synchronization
import WorkbenchCore

/// The four workloads of the scheduler issue, each runnable on our scheduler and on
/// Foundation's OperationQueue with the same body.
enum Workload: String, CaseIterable {
    /// 100,000 independent tasks.
    case w1 = "W1"
    /// 20,000 chains of 5 stages with limits 8, 2, 2, 2, 1.
    case w2 = "W2"
    /// 1 root, then 10,000 children, then 1 sink.
    case w3 = "W3"
    /// W2 with 50 µs bodies, cancelled once 10% of the chains are complete.
    case w4 = "W4"
    /// W3 with 100,000 children: with W3, shows the cost is linear in the fan-out.
    case w3x10 = "W3x10"

    var children: Int { self == .w3x10 ? 100_000 : 10_000 }

    var tasks: Int {
        switch self {
        case .w1: return 100_000
        case .w2, .w4: return 100_000
        case .w3, .w3x10: return children + 2
        }
    }

    var bodyNanoseconds: UInt64 { self == .w4 ? 50_000 : 300 }
    static let chainLimits = [8, 2, 2, 2, 1]
    static let chains = 20_000
}

/// What one measured run reports.
struct Measurement {
    var wall = 0.0
    var cpu = 0.0
    var bodies = 0
    var bodySeconds = 0.0
    var peakRSSKiB = 0
    // W4 only.
    var toTenPercent = 0.0
    var cancelToDrained = 0.0
    var startedAfterCancel = 0

    var line: String {
        "wall=\(wall) cpu=\(cpu) bodies=\(bodies) body=\(bodySeconds) rss=\(peakRSSKiB) ten=\(toTenPercent) drain=\(cancelToDrained) after=\(startedAfterCancel)"
    }

    init() {}

    /// What a finished run of `workload` measured, from the body's counters and the clocks.
    init(_ workload: Workload, body: Body, start t0: UInt64, end t1: UInt64, cpuAtStart cpu0: Double) {
        wall = Double(t1 - t0) / 1e9
        cpu = cpuSeconds() - cpu0
        bodies = body.bodies.load(ordering: .relaxed)
        bodySeconds = Double(body.spent.load(ordering: .relaxed)) / 1e9
        peakRSSKiB = processPeakRSSKiB()
        if workload == .w4 {
            toTenPercent = Double(body.tenPercentAt.load(ordering: .relaxed) - t0) / 1e9
            cancelToDrained = Double(t1 - body.cancelAt.load(ordering: .relaxed)) / 1e9
            startedAfterCancel = body.startedAfterCancel.load(ordering: .relaxed)
        }
    }

    init?(line: String) {
        var fields: [String: String] = [:]
        for part in line.split(separator: " ") {
            let kv = part.split(separator: "=", maxSplits: 1)
            if kv.count == 2 { fields[String(kv[0])] = String(kv[1]) }
        }
        guard let wall = fields["wall"].flatMap(Double.init), let cpu = fields["cpu"].flatMap(Double.init) else { return nil }
        self.wall = wall
        self.cpu = cpu
        bodies = fields["bodies"].flatMap(Int.init) ?? 0
        bodySeconds = fields["body"].flatMap(Double.init) ?? 0
        peakRSSKiB = fields["rss"].flatMap(Int.init) ?? 0
        toTenPercent = fields["ten"].flatMap(Double.init) ?? 0
        cancelToDrained = fields["drain"].flatMap(Double.init) ?? 0
        startedAfterCancel = fields["after"].flatMap(Int.init) ?? 0
    }
}

/// Monotonic nanoseconds.
@inline(__always) func nanos() -> UInt64 {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return UInt64(ts.tv_sec) * 1_000_000_000 + UInt64(ts.tv_nsec)
}

/// Process CPU seconds (user + system).
func cpuSeconds() -> Double {
    var usage = rusage()
    getrusage(RUSAGE_SELF.rawValue, &usage)
    return Double(usage.ru_utime.tv_sec) + Double(usage.ru_utime.tv_usec) / 1e6
        + Double(usage.ru_stime.tv_sec) + Double(usage.ru_stime.tv_usec) / 1e6
}

func processPeakRSSKiB() -> Int {
    var usage = rusage()
    getrusage(RUSAGE_SELF.rawValue, &usage)
    return Int(usage.ru_maxrss)
}

/// The shared body: spins for the workload's duration and keeps the counts W4 needs.
final class Body: Sendable {
    let nanoseconds: UInt64
    let bodies = Atomic<Int>(0)
    let spent = Atomic<UInt64>(0)
    let chainsDone = Atomic<Int>(0)
    let cancelled = Atomic<Bool>(false)
    let startedAfterCancel = Atomic<Int>(0)
    let tenPercentAt = Atomic<UInt64>(0)
    let cancelAt = Atomic<UInt64>(0)
    let cancel = Mutex<(@Sendable () -> Void)?>(nil)

    init(nanoseconds: UInt64) { self.nanoseconds = nanoseconds }

    func run(lastStage: Bool) {
        if cancelled.load(ordering: .acquiring) { startedAfterCancel.add(1, ordering: .relaxed) }
        let start = nanos()
        var now = start
        while now - start < nanoseconds { now = nanos() }
        spent.add(now - start, ordering: .relaxed)
        bodies.add(1, ordering: .relaxed)
        if lastStage {
            let done = chainsDone.add(1, ordering: .relaxed).newValue
            if done == Workload.chains / 10, let cancel = cancel.withLock({ $0 }) {
                tenPercentAt.store(nanos(), ordering: .relaxed)
                cancelled.store(true, ordering: .releasing)
                cancel()
                cancelAt.store(nanos(), ordering: .relaxed)
            }
        }
    }
}
