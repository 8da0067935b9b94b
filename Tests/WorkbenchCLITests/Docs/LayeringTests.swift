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
}
