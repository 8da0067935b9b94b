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

    /// What a node decided for several items alike is said once at the end, with their count,
    /// on the live display as on the plain lines.
    @Test func notesAreSaidOnceAtTheEndWithTheirCount() throws {
        let drawn = Mutex("")
        let display = ProgressDisplay(screen: .init(write: { text in drawn.withLock { $0 += text } }, width: { 120 }), outputRoot: "/tmp/out")
        display.handle(.runStarted(items: 2, nodesPerItem: 4))
        let note = "jpeg: transparent pixels flattened onto white for JPEG"
        for index in 0..<2 {
            display.handle(.itemFinished(ItemReport(item: Item(index: index, name: "cutout-\(index)", source: "/tmp/cutout-\(index).png"),
                                                    status: .succeeded, files: [], bytesWritten: 1_000, failure: nil, duration: 0.1,
                                                    notes: [note])))
        }
        display.handle(.runFinished(RunSummary(items: 2, succeeded: 2, failed: 0, cancelled: 0, nodesRun: 8, bytesWritten: 2_000,
                                               duration: 0.2, ending: .completed)))
        let text = drawn.withLock { $0 }
        #expect(text.components(separatedBy: "Note (2 items): \(note)").count == 2, "\(text)")
    }
}
