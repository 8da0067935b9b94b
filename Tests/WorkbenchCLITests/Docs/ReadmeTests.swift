import Foundation
import Testing
import WorkbenchCore
import WorkbenchNet
import WorkbenchTestSupport
import WorkbenchVips

/// The README and docs/ document what the code declares, and the README stays short.
@Suite struct ReadmeTests {
    private let readme = (try? String(contentsOf: Fixtures.packageRoot.appendingPathComponent("README.md"), encoding: .utf8)) ?? ""

    @Test func everyOpAndParameterIsDocumented() throws {
        let reference = try String(contentsOf: Fixtures.packageRoot.appendingPathComponent("docs/ops.md"), encoding: .utf8)
        // libvips' own operations are documented by libvips and listed by `workbench filters`.
        for spec in (CoreOps.all + NetOps.all + VipsOps.all).map(\.spec) where !spec.name.hasPrefix("vips.") {
            let section = reference.components(separatedBy: "\n### \(spec.name)\n").dropFirst().first?.components(separatedBy: "\n### ").first
            #expect(section != nil, "docs/ops.md lacks \(spec.name)")
            for parameter in spec.parameters {
                #expect(section?.contains("| `\(parameter.name)`") == true, "docs/ops.md lacks \(spec.name).\(parameter.name)")
            }
        }
    }

    /// The `sh` blocks of the README, in order.
    private var commands: [String] {
        readme.components(separatedBy: "```sh\n").dropFirst().compactMap { $0.components(separatedBy: "\n```").first }
    }

    @Test func theTwoSetUpCommandsAreTheOnesCIRuns() throws {
        let ci = try String(contentsOf: Fixtures.packageRoot.appendingPathComponent(".ci/run"), encoding: .utf8)
        let setUp = commands.prefix(2)
        #expect(setUp.count == 2, "\(commands)")
        let (first, second) = (setUp.first ?? "", setUp.last ?? "")
        // The first needs only what the example needs; the tests' packages come with the second.
        #expect(first == "apt-get update && apt-get install -y libvips-dev libcurl4-openssl-dev libavif-dev && swift run -c release workbench run Presets/sepia-thumbnails.json")
        #expect(second.hasPrefix("apt-get install -y ") && second.hasSuffix(" && swift test"))
        // CI runs the README's test command exactly, after installing both commands' packages
        // (its output kept, to print the failures again at the end).
        #expect(ci.split(separator: "\n").contains { $0 == "{ \(second); } 2>&1 | tee \"$log\"" }, "\(ci)")
        // The words between `install -y` and the next `&&`, in both commands.
        let packages = [first, second].flatMap { command in
            (command.components(separatedBy: "install -y ").dropFirst().first?.components(separatedBy: " &&").first ?? "").split(separator: " ")
        }
        let installLine = ci.split(separator: "\n").first { $0.hasPrefix("apt-get install -y -qq") } ?? ""
        for package in packages { #expect(installLine.split(separator: " ").contains(package), "CI does not install \(package)") }
        #expect(packages.contains("chromium") && packages.contains("libvips-dev"))
    }

    @Test func theReadmeIsShortAndEveryLinkLeadsSomewhere() throws {
        #expect(readme.split(separator: "\n", omittingEmptySubsequences: false).count <= 300)
        let files = ["README.md"] + (try FileManager.default.contentsOfDirectory(atPath: Fixtures.packageRoot.appendingPathComponent("docs").path))
            .filter { $0.hasSuffix(".md") }.map { "docs/" + $0 }
        for file in files {
            let text = try String(contentsOf: Fixtures.packageRoot.appendingPathComponent(file), encoding: .utf8)
            let folder = (file as NSString).deletingLastPathComponent
            for match in text.matches(of: /\]\(([^)\s]+)\)/) {
                let target = String(match.1)
                guard !target.hasPrefix("http") else { continue }
                let parts = target.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).map(String.init)
                let path = parts[0].isEmpty ? file : ((folder as NSString).appendingPathComponent(parts[0]) as NSString).standardizingPath
                let linked = Fixtures.packageRoot.appendingPathComponent(path)
                #expect(FileManager.default.fileExists(atPath: linked.path), "\(file) links to \(target), which is not there")
                if parts.count == 2, path.hasSuffix(".md"), let body = try? String(contentsOf: linked, encoding: .utf8) {
                    #expect(Self.anchors(body).contains(parts[1]), "\(file) links to \(target): no such heading")
                }
            }
        }
    }

    /// The anchors GitHub makes of a Markdown file's headings.
    static func anchors(_ text: String) -> Set<String> {
        var found = Set<String>(), fenced = false
        for line in text.split(separator: "\n") {
            if line.hasPrefix("```") && !line.hasPrefix("````") { fenced.toggle() }
            guard !fenced, line.hasPrefix("#") else { continue }
            let title = line.drop { $0 == "#" }.trimmingCharacters(in: .whitespaces).lowercased()
            found.insert(String(title.filter { $0.isLetter || $0.isNumber || $0 == "-" || $0 == " " || $0 == "_" }.map { $0 == " " ? "-" : $0 }))
        }
        return found
    }
}
