import Foundation
import Synchronization
import Testing
import WorkbenchTestSupport
@testable import WorkbenchCore

/// `PresetRun.waitUntilFinished()` from a plain thread, as code outside Swift concurrency calls
/// it. The fuzzer found it stalling a run for good: the caller slept on the workers' condition
/// and took the wake-up meant for an idle worker, so ready work was never run.
@Suite struct WaitUntilFinishedTests {
    @Test func aBlockingWaitNeverStallsTheRun() throws {
        // Work moving between an I/O thread and the CPU workers, which wake each other.
        var nodes = [#"{"id": "n0", "op": "test.source"}"#]
        for i in 1..<9 { nodes.append(#"{"id": "n\#(i)", "op": "\#(i % 2 == 1 ? "test.io" : "test.work")"}"#) }
        let preset = try TestOps.load(#"{"version": 1, "graph": ["# + nodes.joined(separator: ",") + "]}")
        let root = try OutputRoot(try Fixtures.temporaryDirectory("wait").path)
        let runs = 300
        let finished = Mutex(0)
        let done = DispatchSemaphore(value: 0)
        // On a thread of its own, so a stall fails the test (by the timeout below) instead of hanging it.
        Thread.detachNewThread {
            for _ in 0..<runs {
                let run = PresetRun.start(preset, items: .list([Item(index: 0, source: "x")]), output: root,
                                          options: RunOptions(workers: 2, eventDetail: .none))
                if run.waitUntilFinished().succeeded == 1 { finished.withLock { $0 += 1 } }
            }
            done.signal()
        }
        #expect(done.wait(timeout: .now() + 60) == .success, "a run stalled after \(finished.withLock { $0 }) of \(runs)")
        #expect(finished.withLock { $0 } == runs)
    }
}
