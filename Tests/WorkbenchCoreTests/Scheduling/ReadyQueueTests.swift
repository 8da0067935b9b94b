import Testing
@testable import WorkbenchCore

@Suite struct ReadyQueueTests {
    @Test func everyPopIsTheMostUrgentKeyHeld() {
        var random = SystemRandomNumberGenerator()
        for round in 0..<50 {
            var queue = ReadyQueue()
            var held: [ReadyKey] = []
            var version = 0
            // Mostly increasing items (the fast lane) with urgent outliers (the heap), mixed with pops.
            for step in 0..<400 {
                version += 1
                let item = step % 7 == 0 ? Int.random(in: 0..<50, using: &random) : step
                let key = ReadyKey(qos: Int.random(in: 0...3, using: &random) == 0 ? 3 : 1, item: item,
                                   depth: Int.random(in: 0...2, using: &random), instance: step, version: version)
                queue.push(key)
                held.append(key)
                if step % 3 == 0 {
                    let expected = held.min()
                    let next = queue.pop()
                    #expect(next == expected, "round \(round), step \(step)")
                    if let next, let i = held.firstIndex(of: next) { held.remove(at: i) }
                }
            }
            while let expected = held.min() {
                #expect(queue.pop() == expected, "round \(round)")
                held.remove(at: held.firstIndex(of: expected)!) // safe: min() came from held
            }
            #expect(queue.isEmpty && queue.pop() == nil)
        }
    }

    @Test func theHeadIsAlwaysTheMostUrgent() {
        var queue = ReadyQueue()
        queue.push(ReadyKey(qos: 1, item: 5, depth: 0, instance: 0, version: 1))
        queue.push(ReadyKey(qos: 1, item: 9, depth: 0, instance: 1, version: 2))
        queue.push(ReadyKey(qos: 1, item: 2, depth: 0, instance: 2, version: 3)) // goes to the heap
        queue.push(ReadyKey(qos: 3, item: 99, depth: 0, instance: 3, version: 4)) // higher QoS
        #expect([queue.pop(), queue.pop(), queue.pop(), queue.pop()].map { $0?.instance } == [3, 2, 0, 1])
        #expect(queue.pop() == nil)
    }
}
