import Testing
@testable import WorkbenchCore

/// Short I/O bodies run on the CPU worker that made them ready; bodies that wait stay on I/O threads.
@Suite struct ShortIOTests {
    @Test func aNodeRunsInlineOnlyWhileItsBodiesAreShort() {
        // Node 0: synchronous I/O; node 1: not inlineable (CPU work, or a download).
        var short = ShortIO(inlineable: [true, false])
        #expect(!short.runsInline(0), "nothing is known before the first body")
        short.note(0, seconds: 20e-6)
        short.note(1, seconds: 1e-6)
        #expect(short.runsInline(0) && !short.runsInline(1))
        // A body that waited on the disk moves the node back to the threads at once...
        short.note(0, seconds: 0.01)
        #expect(!short.runsInline(0))
        // ...and short bodies there bring it back.
        var brought = 0
        while !short.runsInline(0) && brought < 100 {
            short.note(0, seconds: 20e-6)
            brought += 1
        }
        #expect((2...20).contains(brought), "\(brought)")
    }

    @Test func shortIOBodiesRunOnTheWorkersAndLongOnesOnIOThreads() async throws {
        let h = try Harness("""
            {"version": 1, "queues": {"disk": {"concurrency": 2}, "slow": {"concurrency": 2}},
             "graph": [{"op": "test.source"}, {"id": "quick", "op": "test.io", "queue": "disk", "ms": 0},
                       {"id": "x", "op": "test.work", "ms": 0}, {"id": "slow", "op": "test.io", "queue": "slow", "ms": 2}]}
            """, items: 200, options: RunOptions(workers: 2, window: 8, eventDetail: .nodes))
        let (summary, events) = await h.finish()
        #expect(summary.succeeded == 200, "\(summary)")
        func lanes(_ node: String) -> (cpu: Int, io: Int) {
            let spans = Harness.nodes(events).filter { $0.node == node && $0.state == .succeeded }.compactMap(\.span)
            let cpu = spans.count { if case .cpu = $0.lane { true } else { false } }
            return (cpu, spans.count - cpu)
        }
        let quick = lanes("quick"), slow = lanes("slow")
        #expect(quick.cpu + quick.io == 200 && slow.cpu + slow.io == 200)
        // The first quick bodies run on I/O threads (nothing known yet), the rest on the workers.
        // (Each queue its own: a permit an I/O thread gives back starts the next body there.)
        #expect(quick.io >= 1 && quick.cpu >= 150, "\(quick) \(slow)")
        #expect(slow.cpu == 0, "\(slow)")
    }
}
