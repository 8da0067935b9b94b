import Foundation
import Testing
import WorkbenchCore
import WorkbenchTestSupport
@testable import WorkbenchVips

/// An animation is decoded as its first frame unless the decode asks for every page, and the
/// item's report says so; a still says nothing.
@Suite struct AnimatedInputTests {
    /// A 1×1 GIF of two frames (red, then blue), written byte by byte.
    static let twoFrames: Data = {
        func frame(_ lzw: UInt8) -> [UInt8] {
            [0x21, 0xF9, 0x04, 0x00, 0x0A, 0x00, 0x00, 0x00] + [0x2C, 0, 0, 0, 0, 1, 0, 1, 0, 0, 0x02, 0x02, lzw, 0x01, 0x00]
        }
        let header = Array("GIF89a".utf8) + [1, 0, 1, 0, 0x80, 0, 0, 0xFF, 0, 0, 0, 0, 0xFF]
        let loop = [0x21, 0xFF, 0x0B] + Array("NETSCAPE2.0".utf8) + [0x03, 0x01, 0x00, 0x00, 0x00]
        return Data(header + loop + frame(0x44) + frame(0x4C) + [0x3B])
    }()

    private func notes(_ harness: PresetHarness, pages: String) async throws -> (notes: [String], height: Int) {
        let json = """
            {"version": 1, "output": "out", "graph": [{"id": "s", "op": "read"}, {"id": "i", "op": "decode"\(pages)},
              {"id": "e", "op": "encode", "format": "png"}, {"id": "w", "op": "write", "path": "{name}.png"}]}
            """
        let (summary, reports) = try await harness.run(json, inputs: [harness.folder.appendingPathComponent("anim.gif").path])
        #expect(summary.succeeded == 1)
        let written = try VipsImage.decode(try Data(contentsOf: harness.output("anim.png")), origin: "anim.png")
        return (reports.first?.notes ?? [], written.height)
    }

    @Test func anAnimationKeepsItsFirstFrameAndTheReportSaysSo() async throws {
        let harness = try PresetHarness("animated")
        try Self.twoFrames.write(to: harness.folder.appendingPathComponent("anim.gif"))
        let first = try await notes(harness, pages: "")
        #expect(first.height == 1)
        #expect(first.notes == ["i: the file has 2 frames (pages); the first is kept — give the decode \"pages\": \"all\" for every one"], "\(first.notes)")
        // Every page asked for: the frames stacked, and nothing to say.
        let all = try await notes(harness, pages: ", \"pages\": \"all\"")
        #expect(all.height == 2 && all.notes.isEmpty, "\(all)")
    }
}
