import Foundation
import Testing
@testable import WorkbenchCore

/// `extends` chains are read as a list, merged from the last base up, and bounded.
@Suite struct ExtendsChainTests {
    /// preset-0.json extends preset-1.json … extends preset-(count-1).json, each adding a node.
    private func chain(_ count: Int) throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("workbench-extends-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        for i in 0..<count {
            let extends = i + 1 < count ? #""extends": "preset-\#(i + 1).json", "# : ""
            let graph = i + 1 < count ? #"[{"id": "w\#(i)", "op": "test.work", "from": "read"}]"#
                                      : #"[{"op": "read"}, {"op": "write", "path": "{name}"}]"#
            try #"{\#(extends)"version": 1, "name": "level \#(i)", "graph": \#(graph)}"#
                .write(to: folder.appendingPathComponent("preset-\(i).json"), atomically: true, encoding: .utf8)
        }
        return folder.appendingPathComponent("preset-0.json")
    }

    @Test func aLongChainMergesEveryLevel() throws {
        let preset = try PresetLoader(registry: TestOps.registry()).load(file: try chain(PresetInheritance.longestChain).path)
        #expect(preset.name == "level 0")
        #expect(preset.nodes.count == 2 + PresetInheritance.longestChain - 1)
    }

    @Test func aChainPastTheLimitIsRefusedWhereItGoesOn() throws {
        let file = try chain(PresetInheritance.longestChain + 6)
        do {
            _ = try PresetLoader(registry: TestOps.registry()).load(file: file.path)
            Issue.record("a chain of \(PresetInheritance.longestChain + 6) presets loaded")
        } catch {
            #expect(error.description.contains("a chain of extends may hold \(PresetInheritance.longestChain) presets at most"), "\(error.description.prefix(600))")
        }
    }
}
