import Foundation
import Synchronization
import Testing
@testable import WorkbenchCore
@testable import WorkbenchReports

/// The live display's lines, drawn into a string as a terminal would receive them.
@Suite struct ProgressDisplayTests {
    @Test func aLongEncodeSaysItIsCompressingAndForHowLongAndNothingClaimsARateBeforeBytes() throws {
        let drawn = Mutex("")
        // The display's own clock, moved by the test: nothing here waits on the real one.
        let now = Mutex(Date(timeIntervalSince1970: 1_000_000))
        let display = ProgressDisplay(screen: .init(write: { text in drawn.withLock { $0 += text } }, width: { 120 }), outputRoot: "/tmp/out",
                                      clock: { now.withLock { $0 } })
        let item = Item(index: 0, name: "picos", source: "/tmp/picos.jpg")
        display.handle(.runStarted(items: 1, nodesPerItem: 4))
        display.handle(.node(NodeEvent(item: item, node: "encode", queue: "cpu", state: .running, time: 0, attempt: 1, message: nil)))
        display.handle(.progress(ProgressEvent(item: item, node: "encode", bytes: 100, expectedBytes: 100, unit: .pixels)))
        // The pixels are all made; the encoder goes on compressing (an AVIF: seconds).
        now.withLock { $0 += 1.2 }
        display.tick()
        let during = drawn.withLock { $0 }
        #expect(during.contains("picos (encode 100%, compressing · 0:01)"), "\(during)")
        #expect(!during.contains("MB/s"), "\(during)")
        display.handle(.itemFinished(ItemReport(item: item, status: .succeeded, files: [], bytesWritten: 2_000_000, failure: nil, duration: 1.2)))
        now.withLock { $0 += 0.15 }
        display.tick()
        #expect(drawn.withLock { $0 }.contains("written, "), "\(drawn.withLock { $0 })")
    }
}
