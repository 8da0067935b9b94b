import Foundation
import Testing
import WorkbenchCore
import WorkbenchNet
import WorkbenchTestSupport
import WorkbenchVips

/// The README documents what the code declares.
@Suite struct ReadmeTests {
    private let readme = (try? String(contentsOf: Fixtures.packageRoot.appendingPathComponent("README.md"), encoding: .utf8)) ?? ""

    @Test func everyOpAndParameterIsDocumented() throws {
        let table = readme.components(separatedBy: "### Ops").dropFirst().first ?? ""
        // libvips' own operations are documented by libvips and listed by `workbench filters`.
        for spec in (CoreOps.all + NetStages.all + VipsStages.all).map(\.spec) where !spec.name.hasPrefix("vips.") {
            let row = table.split(separator: "\n").first { $0.hasPrefix("| `\(spec.name)` |") }
            #expect(row != nil, "README lacks a row for \(spec.name)")
            for parameter in spec.parameters {
                #expect(row?.contains("`\(parameter.name)`") == true, "README lacks \(spec.name).\(parameter.name)")
            }
        }
    }

    @Test func theTwoSetUpCommandsAreTheOnesCIRuns() throws {
        let ci = try String(contentsOf: Fixtures.packageRoot.appendingPathComponent(".ci/run"), encoding: .utf8)
        #expect(readme.contains("```sh\nswift test\n```"))
        #expect(ci.split(separator: "\n").last == "swift test")
        #expect(readme.contains("swift run -c release workbench run Presets/sepia-thumbnails.json"))
        for package in ["libvips-dev", "libvips-tools", "libcurl4-openssl-dev", "python3", "nghttp2-server", "openssl", "libimage-exiftool-perl",
                        "graphviz", "chromium", "chromium-driver", "python3-selenium", "make", "rustc", "cargo",
                        "zsh", "fish", "man-db", "binutils", "ca-certificates", "fonts-dejavu-core"] {
            #expect(readme.contains(package) && ci.contains(package))
        }
    }
}
