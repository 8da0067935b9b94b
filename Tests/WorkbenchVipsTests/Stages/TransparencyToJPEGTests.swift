import Foundation
import Testing
import WorkbenchCore
import WorkbenchTestSupport
@testable import WorkbenchVips

/// JPEG has no alpha: a transparent image encoded to it is flattened onto white unless the
/// encode names a `background` (libvips alone would use black), and the item's report notes it.
@Suite struct TransparencyToJPEGTests {
    private func run(_ harness: PresetHarness, encode: String) async throws -> (mean: Double, notes: [String]) {
        let json = """
            {"version": 1, "output": "out", "graph": [{"id": "s", "op": "read"}, {"id": "i", "op": "decode"},
              {"id": "t", "op": "thumbnail", "width": 100}, {"id": "e", "op": "encode", "format": "jpeg"\(encode)},
              {"id": "w", "op": "write", "path": "{name}.jpg"}]}
            """
        let (summary, reports) = try await harness.run(json, inputs: [harness.folder.appendingPathComponent("cutout.png").path])
        #expect(summary.succeeded == 1)
        let written = try VipsImage.decode(try Data(contentsOf: harness.output("cutout.jpg")), origin: "cutout.jpg")
        return (try written.average(), reports.first?.notes ?? [])
    }

    @Test func aHalfTransparentGreyLandsOnWhiteUnlessTheEncodeSaysOtherwise() async throws {
        let harness = try PresetHarness("flatten")
        // Grey 128 at half opacity (8-bit RGBA).
        let black = harness.folder.appendingPathComponent("black.v").path
        _ = try Fixtures.vips(["black", black, "300", "200", "--bands", "4"])
        _ = try Fixtures.vips(["linear", black, harness.folder.appendingPathComponent("cutout.png").path, "1", "128", "--uchar"])

        let onWhite = try await run(harness, encode: "")
        // 128 · 128/255 + 255 · (1 − 128/255) ≈ 191.
        #expect(abs(onWhite.mean - 191) < 2, "\(onWhite.mean)")
        #expect(onWhite.notes == ["e: transparent pixels flattened onto white for JPEG (give the encode a \"background\" for another colour)"])

        let onBlack = try await run(harness, encode: ", \"background\": [0, 0, 0]")
        #expect(abs(onBlack.mean - 64) < 2, "\(onBlack.mean)")
        #expect(onBlack.notes.isEmpty)
    }
}
