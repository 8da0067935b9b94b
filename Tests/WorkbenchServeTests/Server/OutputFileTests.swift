import Foundation
import Testing
import WorkbenchTestSupport
@testable import WorkbenchServe

/// The page asks for outputs by path: only regular files below the output folder are found,
/// whatever the path says (`..`, percent-escapes, hidden files, symbolic links out).
@Suite struct OutputFileTests {
    @Test func onlyRegularFilesBelowTheOutputFolderAreFound() async throws {
        let (session, folder, _) = try LiveSessionTests.session()
        try await session.start()
        let out = folder.appendingPathComponent("out")
        try FileManager.default.createDirectory(at: out.appendingPathComponent("sub"), withIntermediateDirectories: true)
        try Data("made".utf8).write(to: out.appendingPathComponent("sub/made one.json"))
        try Data("hidden".utf8).write(to: out.appendingPathComponent(".hidden"))
        try Data("secret".utf8).write(to: folder.appendingPathComponent("secret.json"))
        try FileManager.default.createSymbolicLink(atPath: out.appendingPathComponent("link.json").path,
                                                   withDestinationPath: folder.appendingPathComponent("secret.json").path)
        let found = await OutputFileRoute.outputFile("/file/output/sub/made%20one.json", prefix: "/file/output/", session: session)
        #expect(found.map { URL(fileURLWithPath: $0).resolvingSymlinksInPath().path }
                == out.appendingPathComponent("sub/made one.json").resolvingSymlinksInPath().path)
        for path in ["../secret.json", "%2E%2E/secret.json", "sub/../../secret.json", ".hidden", "link.json", "sub", "",
                     "nothing.json", "%2Fetc%2Fpasswd", "/etc/passwd"] {
            let refused = await OutputFileRoute.outputFile("/file/output/" + path, prefix: "/file/output/", session: session)
            #expect(refused == nil, "\(path) → \(refused ?? "")")
        }
        #expect(await OutputFileRoute.outputFile("/elsewhere/sub/made%20one.json", prefix: "/file/output/", session: session) == nil)
        await session.finish()
    }
}
