import Foundation
import Testing
@testable import WorkbenchCore
import WorkbenchTestSupport

/// The parts of incremental and sharded runs that need no image: hashes, shard choice, the
/// manifest's files and locks, and which nodes an up-to-date file lets a run leave out.
@Suite struct IncrementalTests {
    @Test func contentHashIsMurmur3x64With128Bits() {
        #expect(ContentHash.hex("") == "00000000000000000000000000000000")
        #expect(ContentHash.hex("hello") == "cbd8a7b341bd9b025b1e906a48ae1d19")
        // 43 bytes: two whole blocks and a tail longer than 8.
        #expect(ContentHash.hex("The quick brown fox jumps over the lazy dog") == "e34bbc7bbc071b6c7a433ca9c49a9347")
        #expect(ContentHash.hex(Data("hello".utf8)) == ContentHash.hex("hello"))
    }

    @Test func shardsComeFromTheArgumentOrTheJobArray() throws {
        #expect(try Shard.parse("2/8", environment: [:]) == Shard(index: 2, count: 8))
        #expect(try Shard.parse("auto/4", environment: ["JOB_COMPLETION_INDEX": "3"]) == Shard(index: 3, count: 4))
        #expect(try Shard.parse("auto/4", environment: ["AWS_BATCH_JOB_ARRAY_INDEX": "0"]) == Shard(index: 0, count: 4))
        // Slurm arrays may start at 1; the count comes with them.
        let slurm = ["SLURM_ARRAY_TASK_ID": "5", "SLURM_ARRAY_TASK_MIN": "1", "SLURM_ARRAY_TASK_COUNT": "8"]
        #expect(try Shard.parse("auto", environment: slurm) == Shard(index: 4, count: 8))
        for (text, environment, message) in [
            ("3/3", [String: String](), "the index must be from 0 to 2"),
            ("1", [:], "give the number of shards too, e.g. 1/4"),
            ("auto/4", [:], "none of JOB_COMPLETION_INDEX, SLURM_ARRAY_TASK_ID, AWS_BATCH_JOB_ARRAY_INDEX is set"),
            ("auto", ["JOB_COMPLETION_INDEX": "1"], "give the number of shards too"),
            ("a/b", [:], "is not a number"),
        ] {
            #expect(throws: WorkbenchError.self) { try Shard.parse(text, environment: environment) }
            do { _ = try Shard.parse(text, environment: environment) } catch { #expect(error.description.contains(message), "\(error)") }
        }
    }

    @Test func everyKeyBelongsToExactlyOneShardAndTheyShareTheWork() throws {
        let shards = try (0..<4).map { try Shard(index: $0, count: 4) }
        var sizes = [0, 0, 0, 0]
        for n in 0..<4000 {
            let owners = shards.filter { $0.contains(key: "photos/\(n).jpg") }
            #expect(owners.count == 1)
            sizes[owners.first?.index ?? 0] += 1
        }
        #expect(sizes.allSatisfy { $0 > 850 && $0 < 1150 }, "\(sizes)")
    }

    @Test func itemKeysAreRelativeToThePresetFolderWhenInsideIt() {
        #expect(Item(index: 0, source: "/p/photos/a.jpg").key(relativeTo: "/p") == "photos/a.jpg")
        #expect(Item(index: 0, source: "/elsewhere/a.jpg").key(relativeTo: "/p") == "/elsewhere/a.jpg")
        #expect(Item(index: 0, source: "https://x.test/a.jpg?s=1").key(relativeTo: "/p") == "https://x.test/a.jpg?s=1")
        #expect(Item(index: 0, source: "file:///p/b.jpg").key(relativeTo: "/p/") == "b.jpg")
    }

    @Test func upToDateFilesLeaveOutOnlyWhatFeedsNothingElse() {
        // read → decode → thumb → jpeg → saveJpeg, thumb → webp → saveWebp, decode → sheet (run scope)
        let dependents = [[1], [2, 7], [3, 5], [4], [], [6], [], []]
        let itemScope = [true, true, true, true, true, true, true, false]
        #expect(RecipeBook.upToDateNodes(fresh: [4], dependents: dependents, itemScope: itemScope) == [3, 4])
        #expect(RecipeBook.upToDateNodes(fresh: [4, 6], dependents: dependents, itemScope: itemScope) == [2, 3, 4, 5, 6])
        // Without the sheet, the whole item goes.
        let alone = [[1], [2], [3, 5], [4], [], [6], []]
        #expect(RecipeBook.upToDateNodes(fresh: [4, 6], dependents: alone, itemScope: Array(repeating: true, count: 7)) == Array(0...6))
    }

    @Test func theManifestIsLockedAppendedAndWrittenOnlyWhenThereIsSomethingToSay() throws {
        let root = try Fixtures.temporaryDirectory("manifest-store").path
        let log = root + "/" + ManifestStore.fileName
        let store = try ManifestStore(root: root)
        #expect(throws: WorkbenchError.self) { try ManifestStore(root: root) }
        // Another shard is another file, with a lock of its own.
        let shard = try ManifestStore(root: root, shard: Shard(index: 1, count: 2))
        try shard.save()
        try store.save()
        #expect(Fixtures.files(in: URL(fileURLWithPath: root), includingManifest: true).isEmpty)

        let file = OutputFile(path: "a.jpg", node: "save", bytes: 10, width: 4, height: 3, format: "jpeg", recipe: "r")
        do {
            // A run that records two items and is killed before it saves: the store goes away
            // (its lock with it), the log keeps both lines, and a torn third line ends it.
            let writer = try ManifestStore(root: root)
            writer.record(ManifestItem(input: "photos/a.jpg", identity: InputIdentity(content: "c"), outputs: [file]))
            writer.record(ManifestItem(input: "photos/b.jpg", identity: InputIdentity(content: "d"), outputs: []))
            let handle = try #require(FileHandle(forWritingAtPath: log))
            handle.seekToEndOfFile()
            handle.write(Data("{\"k\":\"00".utf8))
            try handle.close()
        }
        let rerun = try ManifestStore(root: root)
        #expect(rerun.warnings.isEmpty)
        #expect(rerun.item("photos/a.jpg")?.outputs == [file])
        #expect(rerun.item("photos/b.jpg") != nil && rerun.item("photos/c.jpg") == nil)
        // Said again unchanged, a record costs nothing; changed, one line.
        let size = try #require(try FileManager.default.attributesOfItem(atPath: log)[.size] as? Int)
        rerun.record(ManifestItem(input: "photos/a.jpg", identity: InputIdentity(content: "c"), outputs: [file]))
        #expect(try FileManager.default.attributesOfItem(atPath: log)[.size] as? Int == size)
        rerun.record(ManifestItem(input: "photos/a.jpg", identity: InputIdentity(content: "e"), outputs: [file]))
        #expect(rerun.item("photos/a.jpg")?.identity.content == "e")
        try rerun.save()
        let lines = try String(contentsOfFile: log, encoding: .utf8).split(separator: "\n")
        #expect(lines.count == 4 && lines[0] == "{\"manifestLog\":1}", "\(lines)")
        #expect(try ManifestStore.document(root: root).document.items.map(\.input) == ["photos/a.jpg", "photos/b.jpg"])
    }

    @Test func recordsReadBackExactlyAsJSONEncoderWroteThem() throws {
        let items = [
            ManifestItem(input: "photos/été \"quoted\" \\ tab\t/😀.jpg", preset: "../a.json",
                         identity: InputIdentity(content: "ab", size: 12, modifiedNs: 1_795_576_398_131_314_881),
                         outputs: [OutputFile(path: "x/😀.jpg", node: "save", bytes: 9, width: 3, height: 2, format: "jpeg", recipe: "r"),
                                   OutputFile(path: "a\u{1}b.png", node: "png", bytes: 0)]),
            ManifestItem(input: "https://example.com/a.jpg?x=1&y=2", identity: InputIdentity(etag: "\"v1\"", lastModified: "Tue"), outputs: []),
        ]
        for item in items {
            let line = try ManifestLine.encode(key: 7, preset: item.preset, item: item)
            #expect(ManifestLine.item(in: line.dropLast()) == item, "\(String(decoding: line, as: UTF8.self))")
        }
        // What a newer workbench might add is stepped over; what is malformed reads as nothing.
        let newer = Data(#"{"k":"0000000000000007","s":"0000000000000000","p":[],"item":{"extra":{"a":[1,2,{"b":null}]},"identity":{},"input":"a.jpg","outputs":[],"score":-1.5e3}}"#.utf8)
        #expect(ManifestLine.item(in: newer)?.input == "a.jpg")
        for bad in [#"{"identity":{},"outputs":[]}"#, #"{"input":"a.jpg","identity":{"size":99999999999999999999}}"#,
                    #"{"input":"a.jpg","outputs":[{"path":"x"}]}"#, #"{"input":"a.jpg""#, #"{"input":"a\u12"}"#] {
            let line = Data((#"{"k":"0000000000000007","s":"0000000000000000","p":[],"item":"# + bad + "}").utf8)
            #expect(ManifestLine.item(in: line) == nil, "\(bad)")
        }
    }

    @Test func aLogMostlyStaleIsRewrittenInKeyOrderAndShardsFoldIntoIt() throws {
        let root = try Fixtures.temporaryDirectory("manifest-compact").path
        let log = root + "/" + ManifestStore.fileName
        func item(_ n: Int, _ content: String) -> ManifestItem {
            ManifestItem(input: "in/\(n).jpg", identity: InputIdentity(content: content),
                         outputs: [OutputFile(path: "\(n).jpg", node: "save", bytes: n, recipe: content)])
        }
        // Ten records, then each changed three times: 40 lines, 10 live.
        for round in 0..<4 {
            let store = try ManifestStore(root: root)
            for n in (0..<10).shuffled() { store.record(item(n, "v\(round)")) }
            if round < 3 { withExtendedLifetime(store) {} } else { try store.save() }
        }
        let compacted = try String(contentsOfFile: log, encoding: .utf8).split(separator: "\n")
        #expect(compacted.count == 11)
        let keys = compacted.dropFirst().map { String($0.dropFirst(6).prefix(16)) }
        #expect(keys == keys.sorted())
        // Two shards record into logs of their own; a merge folds them and removes them.
        for index in 0..<2 {
            let shard = try Shard(index: index, count: 2)
            let part = try ManifestStore(root: root, shard: shard)
            for n in 10..<16 where shard.contains(key: "in/\(n).jpg") { part.record(item(n, "s")) }
            try part.save()
        }
        let merged = try ManifestStore.merge(root: root)
        #expect(merged == (parts: 2, items: 16))
        #expect(Fixtures.files(in: URL(fileURLWithPath: root), includingManifest: true) == [ManifestStore.fileName])
        let reopened = try ManifestStore(root: root)
        #expect((0..<16).allSatisfy { reopened.item("in/\($0).jpg") != nil })
        #expect(reopened.item("in/3.jpg")?.identity.content == "v3" && reopened.item("in/12.jpg")?.identity.content == "s")
    }
}

/// The records of several presets in one manifest.
@Suite struct ManifestRecordsTests {
    @Test func presetsAreNamedFromTheOutputFolder() {
        #expect(ManifestStore.presetKey(file: "/srv/photos/presets/a.json", root: "/srv/photos/out") == "../presets/a.json")
        #expect(ManifestStore.presetKey(file: "/srv/photos/out/a.json", root: "/srv/photos/out") == "a.json")
        #expect(ManifestStore.presetKey(file: "/srv/a.json", root: "/srv/photos/out/web/") == "../../../a.json")
    }

    @Test func recordsOfTwoPresetsLiveSideBySideAndAFileHasOneOwner() throws {
        func file(_ path: String) -> OutputFile { OutputFile(path: path, node: "save", bytes: 1, recipe: path) }
        let root = try Fixtures.temporaryDirectory("manifest-owners").path
        let a = try ManifestStore(root: root, preset: "a.json")
        #expect(a.record(ManifestItem(input: "x.jpg", identity: InputIdentity(content: "1"), outputs: [file("x-a.jpg"), file("x.jpg")])).isEmpty)
        try a.save()
        let b = try ManifestStore(root: root, preset: "b.json")
        #expect(b.record(ManifestItem(input: "x.jpg", identity: InputIdentity(content: "1"), outputs: [file("x-b.jpg")])).isEmpty)
        // b writes x.jpg too: it is b's now, and a's record no longer lists it.
        let clashes = b.record(ManifestItem(input: "x.jpg", identity: InputIdentity(content: "1"), outputs: [file("x-b.jpg"), file("x.jpg")]))
        #expect(clashes.count == 1 && clashes[0].contains("overwrote x.jpg of another preset, a.json"), "\(clashes)")
        try b.save()
        let again = try ManifestStore(root: root, preset: "a.json")
        #expect(again.item("x.jpg")?.outputs.map(\.path) == ["x-a.jpg"])
        #expect(try ManifestStore.document(root: root).document.items.count == 2)
        try again.save()

        // A record of no preset (version 1) stands in until the preset records its own.
        let legacy = try Fixtures.temporaryDirectory("manifest-legacy").path
        let old = ManifestDocument(items: [ManifestItem(input: "y.jpg", identity: InputIdentity(content: "2"), outputs: [file("y.jpg")])])
        try old.encoded().write(to: URL(fileURLWithPath: legacy + "/workbench-manifest.json"))
        let named = try ManifestStore(root: legacy, preset: "a.json")
        #expect(named.item("y.jpg")?.outputs.map(\.path) == ["y.jpg"])
        named.record(ManifestItem(input: "y.jpg", identity: InputIdentity(content: "2"), outputs: [file("y.jpg")]))
        try named.save()
        let items = try ManifestStore.document(root: legacy).document.items
        #expect(items.count == 1 && items[0].preset == "a.json", "\(items)")
        #expect(!FileManager.default.fileExists(atPath: legacy + "/workbench-manifest.json"))
    }
}

private extension ManifestDocument {
    static func decode(_ data: Data) throws -> ManifestDocument { try JSONDecoder().decode(ManifestDocument.self, from: data) }
}
