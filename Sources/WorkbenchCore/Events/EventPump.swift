import Dispatch
import Synchronization

/// Carries a run's events from the threads that make them to whoever reads them, in bursts.
///
/// The engine makes an event or more per item, under its lock. Handed over one by one, each
/// woke the reading task (and the manifest's recorder) on its own: for small images a thread
/// switch per item, more than reading the item took. The pump collects them and hands them on
/// at most every `interval` — shorter than a progress display or the live page can show — in
/// order, one burst at a time, on a serial queue of its own; a reader woken once drains the
/// whole burst. The end is handed on as soon as it comes.
final class EventPump: Sendable {
    private struct State {
        var events: [RunEvent] = []
        /// A drain is due: nobody needs to schedule another.
        var scheduled = false
        var finished = false
    }

    static let interval = DispatchTimeInterval.milliseconds(10)

    private let state = Mutex(State())
    private let queue = DispatchQueue(label: "workbench.events")
    private let deliver: @Sendable ([RunEvent]) -> Void
    private let end: @Sendable () -> Void

    /// `deliver` gets the events in order, a burst at a time and never two at once; `end` is
    /// called once, after the last burst, when `finish()` was called.
    init(deliver: @escaping @Sendable ([RunEvent]) -> Void, end: @escaping @Sendable () -> Void) {
        self.deliver = deliver
        self.end = end
    }

    /// Passes an event on with the next burst (ignored after `finish()`).
    func yield(_ event: RunEvent) {
        let due: DispatchTime? = state.withLock { s in
            guard !s.finished else { return nil }
            s.events.append(event)
            return Self.schedule(&s)
        }
        if let due { queue.asyncAfter(deadline: due) { self.drain() } }
    }

    /// No more events: the ones collected are handed on now, then `end`.
    func finish() {
        let due: DispatchTime? = state.withLock { s in
            guard !s.finished else { return nil }
            s.finished = true
            return Self.schedule(&s)
        }
        if let due { queue.asyncAfter(deadline: due) { self.drain() } }
    }

    /// Whether events are waiting for a burst (for tests: after the end, nothing may).
    var holdsEvents: Bool { state.withLock { !$0.events.isEmpty } }

    /// When the next drain should run, if none is due yet.
    private static func schedule(_ s: inout State) -> DispatchTime? {
        guard !s.scheduled else { return nil }
        s.scheduled = true
        return s.finished ? .now() : .now() + interval
    }

    private func drain() {
        let (burst, finished) = state.withLock { s in
            defer { s.events = [] }
            return (s.events, s.finished)
        }
        if !burst.isEmpty { deliver(burst) }
        if finished { return end() }
        let due: DispatchTime? = state.withLock { s in
            s.scheduled = false
            return s.events.isEmpty && !s.finished ? nil : Self.schedule(&s)
        }
        if let due { queue.asyncAfter(deadline: due) { self.drain() } }
    }
}
