import Foundation
import Testing
import WorkbenchTestSupport

/// Rules the sources keep, checked as tools/unexplained-try.py reads them: every `try?` says,
/// in a comment, why failing quietly is right there (or that it is a known gap).
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
}
