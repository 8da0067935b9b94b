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
