import Foundation
import Synchronization

/// Sits between a run's engine and its event stream: records each finished item in the
/// manifest (off the scheduler's lock, a burst at a time — `EventPump`), writes the manifest
/// when the run ends, and only then passes the end on — so whoever sees `runFinished` finds the
/// manifest on disk.
final class ManifestRecorder: Sendable {
    private let manifest: RunManifest
    private let forward: AsyncStream<RunEvent>.Continuation
    private let forwardItems: Bool
    private let done = DispatchGroup()
    private let summary = Mutex<RunSummary?>(nil)

    /// `forwardItems`: whether the caller asked for item events (the engine makes them for the
    /// manifest either way).
    init(_ manifest: RunManifest, forward: AsyncStream<RunEvent>.Continuation, forwardItems: Bool) {
        self.manifest = manifest
        self.forward = forward
        self.forwardItems = forwardItems
        done.enter()
    }

    /// The pump that feeds this recorder: give it to the engine.
    func pump() -> EventPump {
        EventPump(deliver: { [self] burst in
            for event in burst { record(event) }
        }, end: { [self] in
            forward.finish()
            done.leave()
        })
    }

    private func record(_ event: RunEvent) {
        switch event {
        case .itemFinished(let report):
            let clashes = manifest.record(report)
            if forwardItems { forward.yield(clashes.isEmpty ? event : .itemFinished(report.adding(warnings: clashes))) }
        case .runFinished(var result):
            do {
                if manifest.endsWithRun { try manifest.save() } else { try manifest.store.write() }
            } catch {
                result.manifestProblem = "\(error)"
            }
            summary.withLock { $0 = result }
            forward.yield(.runFinished(result))
        case .runStarted:
            if forwardItems { forward.yield(event) }
        default:
            forward.yield(event)
        }
    }

    /// The run's summary once the manifest is written (blocks the calling thread).
    func waitForSummary() -> RunSummary? {
        done.wait()
        return summary.withLock { $0 }
    }

    /// The same, for async callers (the wait happens on a dispatch thread).
    func finalSummary() async -> RunSummary? {
        await withCheckedContinuation { continuation in
            done.notify(queue: .global()) { continuation.resume(returning: self.summary.withLock { $0 }) }
        }
    }
}
