import Foundation
import Testing
import WorkbenchTestSupport

/// The folders of every module form layers (docs/architecture.md): no two depend on each other,
/// no cycle — as `tools/folder-dependencies.py` reads the sources.
@Suite struct LayeringTests {
    @Test func everyModulesFoldersFormLayers() throws {
        let sources = Fixtures.packageRoot.appendingPathComponent("Sources")
        let modules = try FileManager.default.contentsOfDirectory(atPath: sources.path).filter { $0.hasPrefix("Workbench") }.sorted()
        #expect(modules.count >= 8, "\(modules)")
        for module in modules {
            let check = try ContainerImageTests.shell(["/usr/bin/python3", Fixtures.packageRoot.appendingPathComponent("tools/folder-dependencies.py").path,
                                                       sources.appendingPathComponent(module).path])
            #expect(check.status == 0 && check.output.contains("Layers, bottom first:"), "\(module):\n\(check.output)")
        }
    }

    /// A method one folder adds to another's type by an extension is a dependency where it is
    /// called: the check sees it (the pair WorkbenchVips once had, `Operations ↔ Stages`).
    @Test func aMemberAddedByAnExtensionCountsWhereItIsUsed() throws {
        let module = try Fixtures.temporaryDirectory("layering")
        let files = [
            "Base/Inputs.swift": "struct Inputs { let count: Int }\nfunc measure(_ inputs: Inputs) -> Int { inputs.pixels() }\n",
            "Top/Inputs+Pixels.swift": "extension Inputs {\n    func pixels() -> Int { count * 2 }\n}\n",
        ]
        for (path, text) in files {
            let url = module.appendingPathComponent(path)
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try text.write(to: url, atomically: true, encoding: .utf8)
        }
        let check = try ContainerImageTests.shell(["/usr/bin/python3", Fixtures.packageRoot.appendingPathComponent("tools/folder-dependencies.py").path, module.path])
        #expect(check.status != 0 && check.output.contains("Base ↔ Top") && check.output.contains("Base takes .pixels"), "\(check.output)")
    }
}
