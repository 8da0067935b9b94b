import Foundation
import Testing
import WorkbenchTestSupport
@testable import WorkbenchCore

@Suite struct OutputRootTests {
    @Test func writesAtomicallyAndClaimsOnce() throws {
        let folder = try Fixtures.temporaryDirectory("root")
        let root = try OutputRoot(folder.path)
        let item = Item(index: 0, name: "a", source: "a.jpg")
        let path = try root.claim("sub/a.bin", for: item)
        try AtomicFile.write(Data("hello".utf8), to: path, cancellation: CancellationToken())
        #expect(Fixtures.files(in: folder) == ["sub/a.bin"])
        #expect(try String(contentsOfFile: path, encoding: .utf8) == "hello")
        #expect(throws: WorkbenchError.self) { try root.claim("sub/a.bin", for: Item(index: 1, name: "b", source: "b.jpg")) }
    }

    /// A path reserved when its item was admitted stays that item's: the write claims it again,
    /// a later item and a second write node of the same item are refused, and "a/./b" is "a/b".
    @Test func aReservedPathBelongsToItsItemAndNode() throws {
        let root = try OutputRoot(try Fixtures.temporaryDirectory("reserve").path)
        let first = Item(index: 0, name: "Bridge", source: "/photos/Bridge.JPG")
        let second = Item(index: 1, name: "Bridge", source: "/photos/Bridge.jpg")
        try root.reserve("Bridge.jpg", node: "save", for: first)
        #expect {
            try root.claim("./Bridge.jpg", node: "save", for: second)
        } throws: { error in
            "\(error)".contains("is also the output of item \"Bridge\" (Bridge.JPG), earlier in the input list")
        }
        #expect(try root.claim("Bridge.jpg", node: "save", for: first).hasSuffix("/Bridge.jpg"))
        #expect {
            try root.claim("Bridge.jpg", node: "copy", for: first)
        } throws: { error in
            "\(error)".contains("another write node of the same item")
        }
        #expect(root.foldsCase == false)
    }

    @Test func refusesSymlinkEscapes() throws {
        let folder = try Fixtures.temporaryDirectory("root")
        let outside = try Fixtures.temporaryDirectory("outside")
        try FileManager.default.createSymbolicLink(atPath: folder.appendingPathComponent("link").path,
                                                   withDestinationPath: outside.path)
        let root = try OutputRoot(folder.path)
        #expect {
            try root.claim("link/x.jpg", for: Item(index: 0, source: "x"))
        } throws: { error in
            guard case .pathOutsideOutputRoot = error as? WorkbenchError else { return false }
            return true
        }
    }

    @Test func cancelledWriteLeavesNothing() throws {
        let folder = try Fixtures.temporaryDirectory("root")
        let token = CancellationToken()
        token.cancel()
        #expect(throws: WorkbenchError.self) {
            try AtomicFile.write(Data(count: 1 << 20), to: folder.appendingPathComponent("x").path, cancellation: token)
        }
        #expect(Fixtures.files(in: folder).isEmpty)
    }

    @Test func failedWriteNamesThePath() throws {
        let folder = try Fixtures.temporaryDirectory("root")
        let target = folder.appendingPathComponent("missing/x.jpg").path
        #expect {
            try AtomicFile.write(Data("x".utf8), to: target, cancellation: CancellationToken())
        } throws: { error in
            "\(error)".contains(target) && "\(error)".contains("No such file or directory")
        }
    }
}

extension OutputRootTests {
    @Test func noFolderIsMadeThroughALinkOutside() throws {
        let folder = try Fixtures.temporaryDirectory("root")
        let outside = try Fixtures.temporaryDirectory("outside")
        try FileManager.default.createSymbolicLink(atPath: folder.appendingPathComponent("link").path, withDestinationPath: outside.path)
        let root = try OutputRoot(folder.path)
        #expect(throws: WorkbenchError.self) { try root.claim("link/new/deeper/x.jpg", for: Item(index: 0, source: "x")) }
        #expect(Fixtures.files(in: outside).isEmpty)
        #expect(!FileManager.default.fileExists(atPath: outside.appendingPathComponent("new").path))
        // Inside the root, folders are made as before.
        let path = try root.claim("a/b/x.jpg", for: Item(index: 1, source: "y"))
        #expect(path == folder.resolvingSymlinksInPath().path + "/a/b/x.jpg")
    }

    @Test func temporaryNamesCarryTheWritersProcess() {
        #expect(AtomicFile.writer(ofTemporaryName: ".x.jpg.1234-99.workbench-tmp") == 1234)
        #expect(AtomicFile.writer(ofTemporaryName: ".a.b-c.jpg.77-1.workbench-tmp") == 77)
        #expect(AtomicFile.writer(ofTemporaryName: "x.jpg") == nil)
        #expect(AtomicFile.writer(ofTemporaryName: ".x.jpg.workbench-tmp") == nil)
    }
}

/// `write`'s parameters reach its stage through their fields.
@Suite struct WriteParameterTests {
    @Test func metadataPairsAndPathReachTheStage() throws {
        let values = ParameterValues(["path": .string("{stem}.jpg"), "metadata": .list([.list([.string("source"), .string("cat-24")])])])
        let stage = try #require(WriteStage.definition.makeStage(values, NodeFacts()) as? WriteStage)
        #expect(stage.template == "{stem}.jpg" && stage.metadata == ["source": "cat-24"] && stage.cacheControl == nil)
        #expect(WriteStage.spec.parameters.first { $0.name == "path" }?.isRequired == true)
    }
}
