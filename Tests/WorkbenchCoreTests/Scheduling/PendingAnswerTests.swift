import Foundation
import Testing
import WorkbenchCore

/// A completion's answer, waited for by a thread or awaited without one.
struct PendingAnswerTests {
    @Test func theFirstDeliveryIsTheAnswerForEveryWaiter() async {
        let answer = PendingAnswer<Int>()
        let early = Task { await answer.value }
        DispatchQueue.global().asyncAfter(deadline: .now() + 0.05) {
            answer.deliver(7)
            answer.deliver(8)
        }
        #expect(answer.wait() == 7)
        #expect(answer.wait() == 7)
        #expect(await early.value == 7)
        #expect(await answer.value == 7)
    }

    @Test func aCompletionCalledOnAnotherThreadIsReturned() {
        let got = PendingAnswer<String>.waiting { completion in
            Thread.detachNewThread { completion("done") }
        }
        #expect(got == "done")
    }

    @Test func manyAwaitersHoldNoThread() async {
        // More awaiters than the cooperative pool has threads: blocking waits would starve it.
        let answer = PendingAnswer<Int>()
        let sum = await withTaskGroup(of: Int.self) { group in
            for _ in 0..<64 { group.addTask { await answer.value } }
            group.addTask {
                answer.deliver(1)
                return 0
            }
            return await group.reduce(0, +)
        }
        #expect(sum == 64)
    }
}
