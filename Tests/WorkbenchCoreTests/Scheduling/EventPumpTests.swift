import Dispatch
import Synchronization
import Testing
@testable import WorkbenchCore

/// Events reach the reader in order, in bursts, and the end after the last of them.
@Suite struct EventPumpTests {
    final class Received: Sendable {
        let state = Mutex<(events: [RunEvent], bursts: Int, ends: Int, eventsAtEnd: Int)>(([], 0, 0, 0))
        let ended = DispatchSemaphore(value: 0)
    }

    @Test func eventsFromManyThreadsArriveInOrderInBurstsAndTheEndComesLast() {
        let received = Received()
        let pump = EventPump(deliver: { burst in
            received.state.withLock { $0.events += burst; $0.bursts += 1 }
        }, end: {
            received.state.withLock { $0.ends += 1; $0.eventsAtEnd = $0.events.count }
            received.ended.signal()
        })
        // Four threads, 2,500 events each, numbered so each thread's order can be checked.
        DispatchQueue.concurrentPerform(iterations: 4) { thread in
            for i in 0..<2500 { pump.yield(.runStarted(items: thread * 10_000 + i, nodesPerItem: 0)) }
        }
        pump.finish()
        pump.yield(.runStarted(items: -1, nodesPerItem: 0))
        pump.finish()
        received.ended.wait()
        // The event after the end was dropped, not held for a burst: nothing is left that could
        // be delivered after the end (and the second finish() made no second end).
        #expect(!pump.holdsEvents)
        let state = received.state.withLock { $0 }
        #expect(state.ends == 1 && state.eventsAtEnd == 10_000 && state.events.count == 10_000)
        let numbers = state.events.compactMap { if case .runStarted(let n?, _) = $0 { n } else { nil } }
        for thread in 0..<4 {
            let mine = numbers.filter { $0 / 10_000 == thread }
            #expect(mine == Array(thread * 10_000..<thread * 10_000 + 2500), "thread \(thread) out of order")
        }
        // Handing events on one by one would take 10,000 bursts; made in a few milliseconds,
        // they take a handful (a hundred allows for a loaded machine).
        #expect(state.bursts <= 100, "\(state.bursts) bursts")
    }

    @Test func anEventAloneIsHandedOnWithoutWaitingForMore() {
        let received = Received()
        let pump = EventPump(deliver: { burst in
            received.state.withLock { $0.events += burst; $0.bursts += 1 }
            received.ended.signal()
        }, end: {})
        pump.yield(.runStarted(items: 1, nodesPerItem: 0))
        // Held back for want of a burst, this wait would never return (the suite's limit reports it).
        received.ended.wait()
        #expect(received.state.withLock { $0.events.count } == 1)
    }
}
