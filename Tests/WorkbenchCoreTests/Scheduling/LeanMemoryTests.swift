import Foundation
import Synchronization
import Testing
import WorkbenchTestSupport
@testable import WorkbenchCore

/// What a long run must not keep: a job's captures after it ran, a path per claimed file, a
/// report in memory.
@Suite struct LeanMemoryTests {
    /// Says when it is freed.
    private final class Tracked: Sendable {
        let flag: @Sendable () -> Void
        init(_ flag: @escaping @Sendable () -> Void) { self.flag = flag }
        deinit { flag() }
    }

    @Test func anIOJobLetsGoOfWhatItCapturedOnceItHasRun() throws {
        let freed = Mutex(false), ran = Mutex(false)
        do {
            let tracked = Tracked { freed.withLock { $0 = true } }
            IOThreads.shared.run(limit: 1) { _ in
                withExtendedLifetime(tracked) { ran.withLock { $0 = true } }
            }
        }
        let deadline = Date().addingTimeInterval(300)
        while !(ran.withLock { $0 } && freed.withLock { $0 }) && Date() < deadline { usleep(1000) }
        #expect(ran.withLock { $0 })
        // Before, the list of jobs kept every closure until 1,024 had run.
        #expect(freed.withLock { $0 })
    }

    @Test func aClashPastTheNamesKeptNamesTheFirstItemByNumber() throws {
        let folder = try Fixtures.temporaryDirectory("claims")
        let root = try OutputRoot(folder.path)
        for index in 0..<5000 { _ = try root.claim("f\(index).jpg", for: Item(index: index, name: "n\(index)", source: "s")) }
        #expect {
            try root.claim("f3.jpg", for: Item(index: 6000, name: "late", source: "s"))
        } throws: { error in
            (error as? WorkbenchError)?.description.contains("output of item \"n3\"") == true
        }
        #expect {
            try root.claim("f4500.jpg", for: Item(index: 6001, name: "late", source: "s"))
        } throws: { error in
            (error as? WorkbenchError)?.description.contains("output of item number 4500") == true
        }
    }

    @Test func aStreamedFileAppearsWholeOnCommitAndNotAtAllOtherwise() throws {
        let folder = try Fixtures.temporaryDirectory("streamed")
        let destination = folder.appendingPathComponent("report.json").path
        let writer = try AtomicFileWriter(destination: destination)
        for line in 0..<20_000 { writer.write("line \(line)\n") }
        // Written so far: only the temporary file, under a dot-name.
        let during = try FileManager.default.contentsOfDirectory(atPath: folder.path)
        #expect(during.count == 1 && during[0].hasPrefix(".report.json.") && during[0].hasSuffix(AtomicFile.suffix))
        try writer.commit()
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path) == ["report.json"])
        let text = try String(contentsOfFile: destination, encoding: .utf8)
        #expect(text.hasPrefix("line 0\n") && text.hasSuffix("line 19999\n"))

        let dropped = folder.appendingPathComponent("dropped.json").path
        do {
            let abandoned = try AtomicFileWriter(destination: dropped)
            abandoned.write("half")
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path) == ["report.json"])
    }
}
