import Foundation
import Synchronization

/// What a watch has done, for its operators: counters, the items in the run, the seconds from a
/// file's arrival to its item's end, and whether the source is still there. Read as Prometheus
/// text (`GET /metrics`) and as health (`GET /healthz`).
public final class WatchMetrics: Sendable {
    /// Upper bounds of the latency histogram's buckets, in seconds.
    static let bounds: [Double] = [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60]

    private struct State {
        var received = 0
        var ignored = 0
        var queued = 0
        var done = 0
        var failed = 0
        var running = 0
        var buckets = [Int](repeating: 0, count: WatchMetrics.bounds.count)
        var observed = 0
        var sum = 0.0
        var lastEvent: ContinuousClock.Instant?
        var lost: String?
    }

    private let state = Mutex(State())
    private let started = ContinuousClock.now

    public init() {}

    /// An event arrived; `input`: whether it names an input (else it is ignored).
    func received(input: Bool) {
        state.withLock { state in
            state.received += 1
            if !input { state.ignored += 1 }
            state.lastEvent = .now
        }
    }

    func queued() { state.withLock { $0.queued += 1; $0.running += 1 } }

    /// An item ended, `seconds` after its file arrived.
    func ended(failed: Bool, seconds: Double) {
        state.withLock { state in
            state.running -= 1
            if failed { state.failed += 1 } else { state.done += 1 }
            for (n, bound) in Self.bounds.enumerated() where seconds <= bound { state.buckets[n] += 1 }
            state.observed += 1
            state.sum += seconds
        }
    }

    /// The watched source is gone (deleted, unmounted): the watch cannot see new files.
    public func lost(_ reason: String) { state.withLock { $0.lost = reason } }

    /// Nil while watching; why not, once the source is lost.
    public var problem: String? { state.withLock { $0.lost } }

    /// The metrics in Prometheus' text format.
    public func prometheusText() -> String {
        let state = self.state.withLock { $0 }
        let now = ContinuousClock.now
        let idle = (state.lastEvent ?? started).duration(to: now)
        func seconds(_ duration: Duration) -> Double {
            Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
        }
        var lines: [String] = []
        func metric(_ name: String, _ kind: String, _ help: String, _ value: String) {
            lines += ["# HELP \(name) \(help)", "# TYPE \(name) \(kind)", "\(name) \(value)"]
        }
        metric("workbench_watch_events_received_total", "counter", "File events and notifications received.", "\(state.received)")
        metric("workbench_watch_events_ignored_total", "counter", "Events for files that are not inputs of the preset.", "\(state.ignored)")
        metric("workbench_watch_items_queued_total", "counter", "Items handed to the run.", "\(state.queued)")
        metric("workbench_watch_items_done_total", "counter", "Items that ended with their outputs made or up to date.", "\(state.done)")
        metric("workbench_watch_items_failed_total", "counter", "Items that failed.", "\(state.failed)")
        metric("workbench_watch_queue_depth", "gauge", "Items in the run now (waiting or running).", "\(state.running)")
        metric("workbench_watch_seconds_since_last_event", "gauge", "Seconds since the last event (since the start before any).",
               String(format: "%.3f", seconds(idle)))
        metric("workbench_watch_source_up", "gauge", "1 while the source is watched, 0 once it is lost.", state.lost == nil ? "1" : "0")
        lines += ["# HELP workbench_watch_latency_seconds Seconds from a file's arrival to its item's end.",
                  "# TYPE workbench_watch_latency_seconds histogram"]
        for (n, bound) in Self.bounds.enumerated() {
            lines.append("workbench_watch_latency_seconds_bucket{le=\"\(bound)\"} \(state.buckets[n])")
        }
        lines.append("workbench_watch_latency_seconds_bucket{le=\"+Inf\"} \(state.observed)")
        lines.append("workbench_watch_latency_seconds_sum \(String(format: "%.6f", state.sum))")
        lines.append("workbench_watch_latency_seconds_count \(state.observed)")
        return lines.joined(separator: "\n") + "\n"
    }
}
