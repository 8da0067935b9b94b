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

    @Test func theManifestIsLockedJournaledAndWrittenOnlyWhenThereIsSomethingToSay() throws {
        let root = try Fixtures.temporaryDirectory("manifest-store").path
        let store = try ManifestStore(root: root)
        #expect(throws: WorkbenchError.self) { try ManifestStore(root: root) }
        // Another shard is another file, with a lock of its own.
        let shard = try ManifestStore(root: root, shard: Shard(index: 1, count: 2))
        try shard.save()
        try store.save()
        #expect(!FileManager.default.fileExists(atPath: root + "/" + ManifestStore.fileName))

        let file = OutputFile(path: "a.jpg", node: "save", bytes: 10, width: 4, height: 3, format: "jpeg", recipe: "r")
        let journal = root + "/.workbench-manifest.journal"
        do {
            // A run that records two items and is killed before it saves: the store goes away
            // (its lock with it), the journal stays, and a torn third line ends it.
            let writer = try ManifestStore(root: root)
            writer.record(ManifestItem(input: "photos/a.jpg", identity: InputIdentity(content: "c"), outputs: [file]))
            writer.record(ManifestItem(input: "photos/b.jpg", identity: InputIdentity(content: "d"), outputs: []))
            let handle = try #require(FileHandle(forWritingAtPath: journal))
            handle.seekToEndOfFile()
            handle.write(Data("{\"input\": \"photos/c.j".utf8))
            try handle.close()
        }
        let rerun = try ManifestStore(root: root)
        #expect(rerun.item("photos/a.jpg")?.outputs == [file])
        #expect(rerun.item("photos/b.jpg") != nil && rerun.item("photos/c.jpg") == nil)
        try rerun.save()
        #expect(!FileManager.default.fileExists(atPath: journal))
        let written = try ManifestDocument.decode(Data(contentsOf: URL(fileURLWithPath: root + "/" + ManifestStore.fileName)))
        #expect(written.items.map(\.input) == ["photos/a.jpg", "photos/b.jpg"])
    }
}

/// The records of several presets in one manifest.
@Suite struct ManifestRecordsTests {
    @Test func presetsAreNamedFromTheOutputFolder() {
        #expect(ManifestStore.presetKey(file: "/srv/photos/presets/a.json", root: "/srv/photos/out") == "../presets/a.json")
        #expect(ManifestStore.presetKey(file: "/srv/photos/out/a.json", root: "/srv/photos/out") == "a.json")
        #expect(ManifestStore.presetKey(file: "/srv/a.json", root: "/srv/photos/out/web/") == "../../../a.json")
    }

    @Test func recordsOfTwoPresetsLiveSideBySideAndAFileHasOneOwner() {
        func file(_ path: String) -> OutputFile { OutputFile(path: path, node: "save", bytes: 1, recipe: path) }
        var records = ManifestRecords()
        #expect(records.insert(ManifestItem(input: "x.jpg", preset: "a.json", identity: InputIdentity(content: "1"), outputs: [file("x-a.jpg"), file("x.jpg")])).isEmpty)
        #expect(records.insert(ManifestItem(input: "x.jpg", preset: "b.json", identity: InputIdentity(content: "1"), outputs: [file("x-b.jpg")])).isEmpty)
        #expect(records.count == 2)
        #expect(records.item(preset: "a.json", input: "x.jpg")?.outputs.map(\.path) == ["x-a.jpg", "x.jpg"])
        // b writes x.jpg too: it is b's now, and a's record no longer lists it.
        let clashes = records.insert(ManifestItem(input: "x.jpg", preset: "b.json", identity: InputIdentity(content: "1"), outputs: [file("x-b.jpg"), file("x.jpg")]))
        #expect(clashes == [ManifestRecords.Clash(path: "x.jpg", previous: "a.json")])
        #expect(records.item(preset: "a.json", input: "x.jpg")?.outputs.map(\.path) == ["x-a.jpg"])
        // A record of no preset (version 1) stands in until the preset records its own.
        var legacy = ManifestRecords()
        legacy.insert(ManifestItem(input: "y.jpg", identity: InputIdentity(content: "2"), outputs: [file("y.jpg")]))
        #expect(legacy.item(preset: "a.json", input: "y.jpg")?.outputs.map(\.path) == ["y.jpg"])
        legacy.insert(ManifestItem(input: "y.jpg", preset: "a.json", identity: InputIdentity(content: "2"), outputs: [file("y.jpg")]))
        #expect(legacy.count == 1 && legacy.item(preset: nil, input: "y.jpg") == nil)
    }
}

private extension ManifestDocument {
    static func decode(_ data: Data) throws -> ManifestDocument { try JSONDecoder().decode(ManifestDocument.self, from: data) }
}
