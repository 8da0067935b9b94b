import Foundation
import Synchronization
import WorkbenchCore

/// What the page shows, kept up to date from the run's events: every item's row, the totals,
/// the queues, the preset's state. Changes are pushed to the page's event streams at most ten
/// times a second, as the rows that changed.
final class ItemBoard: Sendable {
    /// One item as the page draws it.
    struct Row: Codable, Sendable, Equatable {
        var index: Int
        var name: String
        /// Whether the input is a local file (its preview is served) or a URL.
        var local: Bool
        var source: String
        var state: ItemState
        /// The node running and its progress, e.g. "encode 40%".
        var detail: String?
        var outputs: [String]
        var error: String?
        var seconds: Double?
        /// What its encodes chose for a quality target (`--verbose`'s words, short): "encoded-jpeg
        /// Q 74 (80.1)".
        var measured: String? = nil
    }

    struct Queue: Codable, Sendable, Equatable {
        var name: String
        var running: Int
        var waiting: Int
    }

    /// The preset as last read: fine, or its diagnostics (file:line:col).
    struct PresetState: Codable, Sendable, Equatable {
        var file: String
        var ok: Bool
        var errors: [String]
        /// The graph as `validate` draws it.
        var graph: String
    }

    /// Everything, for a page that has just loaded (and for tests).
    struct Snapshot: Codable, Sendable {
        var round: Int
        var running: Bool
        var preset: PresetState
        var rows: [Row]
        var queues: [Queue]
        /// Rows in each final state now (an item made again counts once).
        var done: Int
        var failed: Int
        var upToDate: Int
        var bytesWritten: Int
        /// Items made (not found up to date) per second of the time items were running, since
        /// the preset was last read.
        var itemsPerSecond: Double
        /// Items in the order their first node started in this round.
        var startOrder: [Int]
        /// Items cancelled because they stayed off screen.
        var cancelledOffScreen: [Int]
        /// Items stopped because the page was closed.
        var cancelledOnClose: [Int]
        /// Bodies of run-scope nodes (a watermark's logo) started in this session, by node: once
        /// per preset version, however many items use them.
        var runScopeStarts: [String: Int] = [:]
    }

    fileprivate struct State {
        var snapshot: Snapshot
        var dirty = Set<Int>()
        var totalsDirty = true
        var ops: [String: String] = [:]
        /// Time items ran since the preset was last read, and when the current stretch began.
        var busy: TimeInterval = 0
        var busySince: Date?
    }

    private let state: Mutex<State>
    /// The page's event streams, which `flush` and `send` feed.
    let streams = BoardStreams()

    init(presetFile: String) {
        state = Mutex(State(snapshot: Snapshot(
            round: 0, running: false, preset: PresetState(file: presetFile, ok: true, errors: [], graph: ""), rows: [], queues: [],
            done: 0, failed: 0, upToDate: 0, bytesWritten: 0, itemsPerSecond: 0, startOrder: [], cancelledOffScreen: [],
            cancelledOnClose: [])))
    }

    var snapshot: Snapshot { state.withLock { s in s.recount(); return s.snapshot } }

    /// A new list of items (a preset was read): every row queued again.
    func reset(items: [Item], preset: PresetState, ops: [String: String]) {
        state.withLock { s in
            let old = Dictionary(s.snapshot.rows.map { ($0.source, $0) }, uniquingKeysWith: { a, _ in a })
            s.snapshot.rows = items.map { item in
                var row = Row(index: item.index, name: item.name, local: !item.isURL || item.source.hasPrefix("file://"), source: item.source,
                              state: .queued, detail: nil, outputs: [], error: nil, seconds: nil)
                // Outputs already made stay shown until their item runs again.
                if let before = old[item.source] { row.outputs = before.outputs; row.state = before.outputs.isEmpty ? .queued : .stale }
                return row
            }
            s.snapshot.preset = preset
            s.ops = ops
            s.busy = 0
            s.busySince = s.snapshot.running ? Date() : nil
            s.dirty.formUnion(s.snapshot.rows.indices)
            s.totalsDirty = true
        }
        publish(full: true)
    }

    /// The preset could not be read: its errors shown, the rows left as they are.
    func presetFailed(_ preset: PresetState) {
        state.withLock { $0.snapshot.preset = preset; $0.totalsDirty = true }
        publish(full: true)
    }

    /// The session starts item `index` (in the order it chose).
    func itemStarting(_ index: Int) {
        state.withLock { s in
            guard s.snapshot.rows.indices.contains(index) else { return }
            s.snapshot.startOrder.append(index)
            s.snapshot.rows[index].state = .waiting
            s.snapshot.rows[index].detail = nil
            s.dirty.insert(index)
        }
    }

    func setRunning(_ running: Bool) {
        state.withLock { s in
            guard s.snapshot.running != running else { return }
            s.snapshot.running = running
            if running { s.busySince = Date() } else if let since = s.busySince { s.busy += Date().timeIntervalSince(since); s.busySince = nil }
            if !running { for q in s.snapshot.queues.indices { s.snapshot.queues[q].running = 0; s.snapshot.queues[q].waiting = 0 } }
            s.totalsDirty = true
        }
    }

    /// The page went away while these items ran.
    func closed(_ indices: [Int]) {
        state.withLock { s in
            s.snapshot.cancelledOnClose += indices.sorted()
            for i in indices where s.snapshot.rows.indices.contains(i) {
                s.snapshot.rows[i].state = .cancelled
                s.dirty.insert(i)
            }
            s.totalsDirty = true
        }
    }

    /// The page scrolled a running item away: lowered behind what it shows, or cancelled after the grace.
    func offScreen(_ index: Int, cancelled: Bool) {
        state.withLock { s in
            // An item that ended meanwhile keeps what it ended as.
            guard s.snapshot.rows.indices.contains(index),
                  ![.done, .upToDate, .failed, .cancelled].contains(s.snapshot.rows[index].state) else { return }
            if cancelled { s.snapshot.cancelledOffScreen.append(index) }
            s.snapshot.rows[index].state = cancelled ? .cancelled : .lowered
            s.dirty.insert(index)
        }
    }

    /// Takes in one event of the run.
    func apply(_ event: RunEvent) {
        state.withLock { s in
            switch event {
            case .node(let e):
                var queue = s.snapshot.queues.firstIndex { $0.name == e.queue }
                if queue == nil {
                    s.snapshot.queues.append(Queue(name: e.queue, running: 0, waiting: 0))
                    queue = s.snapshot.queues.count - 1
                }
                if let q = queue {
                    switch e.state {
                    case .ready: s.snapshot.queues[q].waiting += 1
                    case .running:
                        s.snapshot.queues[q].waiting = max(0, s.snapshot.queues[q].waiting - 1)
                        s.snapshot.queues[q].running += 1
                    default:
                        if e.span != nil { s.snapshot.queues[q].running = max(0, s.snapshot.queues[q].running - 1) }
                    }
                }
                s.totalsDirty = true
                if e.item == .run, e.state == .running { s.snapshot.runScopeStarts[e.node, default: 0] += 1 }
                let i = e.item.index
                guard e.state == .running, s.snapshot.rows.indices.contains(i) else { return }
                s.snapshot.rows[i].state = ItemState.working(on: s.ops[e.node] ?? "")
                s.snapshot.rows[i].detail = e.node
                s.dirty.insert(i)
            case .progress(let p):
                let i = p.item.index
                guard s.snapshot.rows.indices.contains(i), let all = p.expectedBytes, all > 0 else { return }
                let detail = "\(p.node) \(min(100, p.bytes * 100 / all))%"
                if s.snapshot.rows[i].detail != detail { s.snapshot.rows[i].detail = detail; s.dirty.insert(i) }
            case .itemFinished(let report):
                let i = report.item.index
                guard s.snapshot.rows.indices.contains(i) else { return }
                var row = s.snapshot.rows[i]
                row.detail = nil
                row.seconds = report.duration
                switch report.status {
                case .succeeded: row.state = .done
                case .upToDate: row.state = .upToDate
                case .failed: row.state = .failed
                case .cancelled: row.state = s.snapshot.cancelledOffScreen.contains(i) ? .cancelled : .queued
                }
                if report.status != .cancelled {
                    row.outputs = (report.files + report.upToDate).map(\.path)
                    row.measured = Self.measured(report.measurements)
                    row.error = report.failure.map { "\($0.node): \($0.message)" }
                }
                s.snapshot.bytesWritten += report.bytesWritten
                s.snapshot.rows[i] = row
                s.dirty.insert(i)
                s.totalsDirty = true
            case .runStarted, .runFinished:
                break
            }
        }
    }

    // MARK: - What the page's streams are sent

    /// A stream for a page: the whole state first, then changes (`flush`).
    func listen() -> (id: UUID, stream: AsyncStream<String>) {
        // Under the board's lock: no change is flushed between the snapshot and the stream.
        state.withLock { s in streams.listen(first: { BoardStreams.message("snapshot", s.snapshot) }) }
    }

    /// Sends what changed since the last flush (called by a 100 ms ticker).
    func flush() { publish(full: false) }

    private func publish(full: Bool) {
        let messages = state.withLock { s -> [String] in
            var messages: [String] = []
            s.recount()
            if full {
                messages.append(BoardStreams.message("snapshot", s.snapshot))
            } else {
                if !s.dirty.isEmpty {
                    messages.append(BoardStreams.message("rows", s.dirty.sorted().compactMap { s.snapshot.rows.indices.contains($0) ? s.snapshot.rows[$0] : nil }))
                }
                if s.totalsDirty {
                    var totals = s.snapshot
                    totals.rows = []
                    messages.append(BoardStreams.message("totals", totals))
                }
            }
            s.dirty = []
            s.totalsDirty = false
            return messages
        }
        streams.broadcast(messages)
    }
}

extension ItemBoard.State {
    /// The totals from the rows as they stand: an item made twice (the preset changed) or one
    /// scrolled away and made again counts once.
    mutating func recount() {
        var done = 0, failed = 0, upToDate = 0
        for row in snapshot.rows {
            switch row.state {
            case .done: done += 1
            case .failed: failed += 1
            case .upToDate: upToDate += 1
            default: break
            }
        }
        snapshot.done = done
        snapshot.failed = failed
        snapshot.upToDate = upToDate
        let busy = self.busy + (busySince.map { Date().timeIntervalSince($0) } ?? 0)
        snapshot.itemsPerSecond = busy > 0 ? Double(done) / busy : 0
    }
}

extension ItemBoard {
    /// The qualities an item's encodes chose (and their scores), for its card: nil when none
    /// searched one.
    static func measured(_ measurements: [NodeMeasurement]) -> String? {
        let chosen = measurements.compactMap { m -> String? in
            guard let q = m["Q"] else { return nil }
            return "\(m.node) Q \(Int(q))" + (m["ssimulacra2"].map { String(format: " (%.1f)", $0) } ?? "")
        }
        return chosen.isEmpty ? nil : chosen.joined(separator: ", ")
    }
}
