import Foundation
import Testing
import WorkbenchTestSupport
@testable import WorkbenchCore

/// What an `inputs.glob` takes from a folder: a camera's upper-case extensions as well as
/// lower-case ones, alternatives in braces, hidden files only when asked for.
struct TreeGlobTests {
    private func folder(_ names: [String]) throws -> URL {
        let root = try Fixtures.temporaryDirectory("glob")
        for name in names {
            let file = root.appendingPathComponent(name)
            try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data("x".utf8).write(to: file)
        }
        return root
    }

    private func matched(_ pattern: String, in root: URL) -> [String] {
        TreeGlob(root.path + "/" + pattern).matches().map { String($0.path.dropFirst(root.path.count + 1)) }
    }

    @Test func wildcardsMatchEitherCaseAndBracesGiveAlternatives() throws {
        let root = try folder(["IMG_0001.JPG", "IMG_0002.jpeg", "a.jpg", "b.png", "c.Jpeg", ".hidden.jpg", "trip/IMG_0003.JpG"])
        #expect(matched("*.jpg", in: root) == ["IMG_0001.JPG", "a.jpg"])
        #expect(matched("*.{jpg,jpeg}", in: root) == ["IMG_0001.JPG", "IMG_0002.jpeg", "a.jpg", "c.Jpeg"])
        #expect(matched("**/*.{jpg,jpeg}", in: root) == ["IMG_0001.JPG", "IMG_0002.jpeg", "a.jpg", "c.Jpeg", "trip/IMG_0003.JpG"])
        #expect(matched(".*.jpg", in: root) == [".hidden.jpg"])
        // A part without a wildcard names its file exactly.
        #expect(matched("trip/IMG_0003.JpG", in: root) == ["trip/IMG_0003.JpG"])
        #expect(matched("TRIP/*.jpg", in: root).isEmpty)
    }

    @Test func alternativesExpandEveryGroup() {
        #expect(TreeGlob.alternatives(of: "*.{jpg,jpeg}") == ["*.jpg", "*.jpeg"])
        #expect(TreeGlob.alternatives(of: "{a,b}-{1,2}") == ["a-1", "a-2", "b-1", "b-2"])
        #expect(TreeGlob.alternatives(of: "plain") == ["plain"])
        #expect(TreeGlob.alternatives(of: "open{brace") == ["open{brace"])
    }
}
