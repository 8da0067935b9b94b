import Foundation
import Testing
@testable import WorkbenchServe

/// The page's files as the binary serves them: every marked place filled, and a script Chromium
/// parses.
@Suite struct PageScriptTests {
    /// Chromium's verdict on `source` as a script: "ok" or the syntax error it reports.
    static func parse(_ source: String) throws -> String {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("page-script-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let literal = String(decoding: try JSONEncoder().encode(source), as: UTF8.self)
        // Compiled, not run: `new Function` parses the whole text and throws a SyntaxError.
        let probe = """
            <!doctype html><html><body><script>
            let verdict;
            try { new Function(\(literal)); verdict = "ok"; } catch (e) { verdict = e.name + ": " + e.message; }
            document.body.setAttribute("data-verdict", verdict);
            </script></body></html>
            """
        let page = folder.appendingPathComponent("probe.html")
        try probe.write(to: page, atomically: true, encoding: .utf8)
        let chromium = Process()
        chromium.executableURL = URL(fileURLWithPath: "/usr/bin/chromium")
        chromium.arguments = ["--headless", "--no-sandbox", "--disable-gpu", "--user-data-dir=\(folder.path)/profile",
                              "--dump-dom", page.absoluteString]
        let output = Pipe()
        chromium.standardOutput = output
        chromium.standardError = FileHandle.nullDevice
        try chromium.run()
        let dom = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        chromium.waitUntilExit()
        guard let start = dom.range(of: "data-verdict=\""), let end = dom[start.upperBound...].firstIndex(of: "\"") else {
            return "no verdict in Chromium's output: \(dom.prefix(300))"
        }
        return String(dom[start.upperBound..<end])
    }

    @Test func theServedScriptParsesInChromium() throws {
        #expect(try Self.parse(Page.script) == "ok")
        // The check itself can fail: one stray brace is reported with its error.
        let broken = try Self.parse(Page.script + "\n}")
        #expect(broken.hasPrefix("SyntaxError"), "\(broken)")
    }

    @Test func everyMarkedPlaceIsFilled() {
        let html = Page.html(token: "secret-token")
        for marker in ["/* page.css */", "/* page.js */", "/* ItemState.script */", "/* ItemState.workingSelector */", "__TOKEN__"] {
            #expect(!html.contains(marker), "\(marker)")
        }
        #expect(html.contains(ItemState.workingSelector + " {") && html.contains("const token = \"secret-token\""))
        #expect(html.hasPrefix("<!doctype html>") && html.contains("<style>") && html.contains("</script>"))
    }
}
