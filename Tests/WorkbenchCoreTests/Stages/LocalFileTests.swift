import Foundation
import Testing
import WorkbenchTestSupport
@testable import WorkbenchCore

/// `read`'s file access: the whole file in one buffer, refused — naming the path and what to
/// do — when it is missing, too large, a folder, or a URL.
@Suite struct LocalFileTests {
    @Test func readsTheWholeFileFromAPathOrAFileURL() throws {
        let folder = try Fixtures.temporaryDirectory("read")
        let file = folder.appendingPathComponent("photo one.jpg")
        let bytes = Data((0..<200_000).map { UInt8(truncatingIfNeeded: $0 &* 31) })
        try bytes.write(to: file)
        #expect(try LocalFile.read(file.path, maxBytes: 1 << 20).data == bytes)
        #expect(try LocalFile.read(file.absoluteString, maxBytes: 1 << 20).data == bytes)
        #expect(try LocalFile.read(file.path, maxBytes: 200_000).origin == file.path)
    }

    @Test func aFileReadsWholeAtEverySizeAndBeyondWhatStatSaid() throws {
        let folder = try Fixtures.temporaryDirectory("read")
        for size in [0, 1, 4095, 4096, 7136, 65_537, 1000] {
            let file = folder.appendingPathComponent("f\(size)")
            let bytes = Data((0..<size).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ size) })
            try bytes.write(to: file)
            // 1000 is also the limit: a file of exactly the limit is read.
            #expect(try LocalFile.read(file.path, maxBytes: size == 1000 ? 1000 : 1 << 20).data == bytes, "\(size) bytes")
        }
        // /proc's files say they are empty and are not: what the file holds when read counts,
        // as for a file that grew between `stat` and `read`.
        let status = try LocalFile.read("/proc/self/status", maxBytes: 1 << 20).data
        #expect(String(decoding: status, as: UTF8.self).contains("Name:") && status.count > 100)
    }

    @Test func refusalsNameThePathAndWhatToDo() throws {
        let folder = try Fixtures.temporaryDirectory("read")
        let file = folder.appendingPathComponent("big.jpg")
        try Data(count: 1001).write(to: file)
        let cases: [(String, String)] = [
            (file.path, "is 1001 bytes, more than the limit of 1000 bytes; raise the stage's \"maxBytes\""),
            (folder.appendingPathComponent("missing.jpg").path, "missing.jpg\": No such file or directory"),
            (folder.path, "not a regular file"),
            ("https://example.org/a.jpg", "use \"download\" for URLs"),
        ]
        for (source, words) in cases {
            let error = #expect(throws: WorkbenchError.self) { try LocalFile.read(source, maxBytes: 1000) }
            let text = error.map { "\($0)" } ?? ""
            let named = source.hasPrefix("https") ? source : (source as NSString).lastPathComponent
            #expect(text.contains(words) && text.contains(named), "\(text)")
        }
    }

    @Test func aSharedRunFileGetsTheShardBeforeItsExtension() {
        #expect(WriteStage.inserting("shard-0-of-4", into: "sheets/contact.jpg") == "sheets/contact.shard-0-of-4.jpg")
        #expect(WriteStage.inserting("shard-1-of-2", into: "index") == "index.shard-1-of-2")
    }
}
