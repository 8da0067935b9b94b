import Foundation
import Testing
import WorkbenchTestSupport

/// Rules the sources keep, checked as tools/unexplained-try.py and tools/architecture-names.py
/// read them: every `try?` says, in a comment, why failing quietly is right there (or that it is
/// a known gap); every name docs/architecture.md mentions exists in the code.
@Suite struct SourceRulesTests {
    static let script = Fixtures.packageRoot.appendingPathComponent("tools/unexplained-try.py").path

    @Test func everyQuietTrySaysWhy() throws {
        let check = try ContainerImageTests.shell(["/usr/bin/python3", Self.script, Fixtures.packageRoot.appendingPathComponent("Sources").path])
        #expect(check.status == 0 && check.output.contains("every try? says why"), "\(check.output)")
    }

    /// The check sees a bare `try?`, and takes a comment above a statement split over lines.
    @Test func aBareTryIsFoundAndAnExplainedOneIsNot() throws {
        let folder = try Fixtures.temporaryDirectory("try-rule")
        try """
            func a() {
                // A missing cache is rebuilt.
                guard let x = try? load(),
                      let y = try? parse(x) else { return }
                let z = try? load()
            }
            """.write(to: folder.appendingPathComponent("A.swift"), atomically: true, encoding: .utf8)
        let check = try ContainerImageTests.shell(["/usr/bin/python3", Self.script, folder.path])
        #expect(check.status != 0 && check.output.contains("A.swift:5:") && !check.output.contains("A.swift:3:")
                    && !check.output.contains("A.swift:4:"), "\(check.output)")
    }

    @Test func everyNameTheArchitectureDocMentionsExists() throws {
        let check = try ContainerImageTests.shell(["/usr/bin/python3", Self.names, Fixtures.packageRoot.path])
        #expect(check.status == 0 && check.output.contains("every name in docs/architecture.md exists"), "\(check.output)")
    }

    /// A renamed type, member or file left in the doc is found.
    @Test func aStaleNameInTheArchitectureDocIsFound() throws {
        let root = try Fixtures.temporaryDirectory("architecture-names")
        for folder in ["docs", "Sources/Core"] {
            try FileManager.default.createDirectory(at: root.appendingPathComponent(folder), withIntermediateDirectories: true)
        }
        try "struct RunEngine { func takeNotes() {} }\n".write(to: root.appendingPathComponent("Sources/Core/RunEngine.swift"), atomically: true, encoding: .utf8)
        try "The `RunEngine` calls `RunEngine.takeNotes`, then `takeWarnings`; see Gone.swift and RunEngine.swift.\n"
            .write(to: root.appendingPathComponent("docs/architecture.md"), atomically: true, encoding: .utf8)
        let check = try ContainerImageTests.shell(["/usr/bin/python3", Self.names, root.path])
        #expect(check.status != 0 && check.output.contains("names takeWarnings,") && check.output.contains("names Gone.swift,")
                    && !check.output.contains("names RunEngine") && !check.output.contains("names takeNotes"), "\(check.output)")
    }

    static let names = Fixtures.packageRoot.appendingPathComponent("tools/architecture-names.py").path
}
