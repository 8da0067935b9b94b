import Foundation
import Testing
import WorkbenchCore
import WorkbenchTestSupport
@testable import WorkbenchVips

/// Damaged inputs fail (or warn) at the decode, in their own words, whatever else runs beside them.
@Suite struct DamageTests {
    static let preset = #"""
        {"version": 1, "graph": [{"op": "read"}, {"op": "decode"DECODE}, {"op": "thumbnail", "width": 300},
          {"op": "encode", "format": "jpeg"}, {"op": "write", "path": "{name}-{index}.jpg"}]}
        """#

    private func preset(failOn: String? = nil) -> String {
        Self.preset.replacingOccurrences(of: "DECODE", with: failOn.map { #", "failOn": "\#($0)""# } ?? "")
    }

    /// Damaged files made by cutting and flipping bytes of the samples (and one WebP made by the
    /// vips tool): truncated, corrupt entropy data, empty, a GIF with only its signature, text.
    private func damagedFiles(in harness: PresetHarness) throws -> [String: String] {
        let bridge = try Data(contentsOf: Fixtures.samples.appendingPathComponent("Bridge.jpg"))
        var corrupt = bridge
        for i in stride(from: 40_000, to: 40_400, by: 7) { corrupt[i] ^= 0x5A }
        let webp = harness.folder.appendingPathComponent("whole.webp").path
        try Fixtures.vips(["copy", Fixtures.samples.appendingPathComponent("Wine.jpg").path, webp])
        let files: [String: Data] = [
            "truncated.jpg": bridge.prefix(60_000), "corrupt.jpg": corrupt, "empty.jpg": Data(),
            "signature.gif": Data("GIF89a".utf8), "notes.jpg": Data("not an image\n".utf8),
            "truncated.webp": try Data(contentsOf: URL(fileURLWithPath: webp)).prefix(4_000),
        ]
        var paths: [String: String] = [:]
        for (name, data) in files {
            let url = harness.folder.appendingPathComponent(name)
            try data.write(to: url)
            paths[name] = url.path
        }
        return paths
    }

    @Test func aTruncatedJPEGFailsAtItsDecode() async throws {
        let harness = try PresetHarness("damage-truncated")
        let files = try damagedFiles(in: harness)
        let (_, reports) = try await harness.run(preset(), inputs: [try #require(files["truncated.jpg"])])
        let failure = try #require(reports.first?.failure)
        #expect(failure.node == "decode")
        #expect(failure.message == "Cannot decode \"\(files["truncated.jpg"] ?? "")\": VipsJpeg: Premature end of input file. The file is damaged (found when its pixels were read).")
    }

    @Test func corruptDataWarnsAndFailsUnderFailOnWarning() async throws {
        let harness = try PresetHarness("damage-corrupt")
        let file = try #require(try damagedFiles(in: harness)["corrupt.jpg"])
        let (summary, reports) = try await harness.run(preset(), inputs: [file])
        #expect(summary.succeeded == 1)
        #expect(reports.first?.warnings == ["decode: VipsJpeg: Corrupt JPEG data: premature end of data segment"])
        let (strict, strictReports) = try await harness.run(preset(failOn: "warning"), inputs: [file], output: "strict")
        #expect(strict.failed == 1)
        #expect(strictReports.first?.failure?.node == "decode")
        #expect(strictReports.first?.failure?.message.contains("Corrupt JPEG data") == true, "\(strictReports.first?.failure?.message ?? "")")
    }

    @Test func anEmptyFileSaysItIsEmpty() async throws {
        let harness = try PresetHarness("damage-empty")
        let file = try #require(try damagedFiles(in: harness)["empty.jpg"])
        let (_, reports) = try await harness.run(preset(), inputs: [file])
        #expect(reports.first?.failure?.message == "Cannot decode \"\(file)\": the file is empty (0 bytes). The file may be damaged or not an image.")
    }

    /// Each damaged file's message in a busy batch on two workers (every file four times, among
    /// good photos) is exactly its message when it runs alone.
    @Test func messagesBelongToTheirItem() async throws {
        let harness = try PresetHarness("damage-batch")
        let files = try damagedFiles(in: harness)
        var alone: [String: (failure: String?, warnings: [String])] = [:]
        for (name, path) in files {
            let (_, reports) = try await harness.run(preset(), inputs: [path], workers: 1, output: "alone-\(name)")
            alone[path] = (reports.first?.failure?.message, reports.first?.warnings ?? [])
        }
        let photos = Fixtures.samplePhotos.map(\.path)
        var batch: [String] = []
        for round in 0..<4 { batch += (round % 2 == 0 ? files.values.sorted() : files.values.sorted().reversed()) + photos }
        let (summary, reports) = try await harness.run(preset(), inputs: batch, workers: 2, output: "batch")
        #expect(summary.items == batch.count)
        var compared = 0
        for report in reports {
            guard let expected = alone[report.item.source] else {
                #expect(report.status == .succeeded, "\(report.item.source): \(report.failure?.message ?? "")")
                continue
            }
            #expect(report.failure?.message == expected.failure, "\(report.item.source)")
            #expect(report.warnings == expected.warnings, "\(report.item.source)")
            compared += 1
        }
        #expect(compared == files.count * 4)
    }

    /// The same holds where the pixels are read elsewhere than in `encode`: a thumbnail kept in
    /// memory for two readers (a file and a contact sheet), and a chain of libvips operations
    /// and the Swift sepia kernel after a plain decode.
    @Test func damageIsFoundWhereverThePixelsAreRead() async throws {
        let harness = try PresetHarness("damage-paths")
        let files = try damagedFiles(in: harness)
        let inputs = [try #require(files["truncated.jpg"]), try #require(files["corrupt.jpg"])]
        let graphs = [
            #"""
            {"version": 1, "graph": [{"op": "read"}, {"op": "decode"}, {"id": "thumb", "op": "thumbnail", "width": 100},
              {"op": "encode", "format": "png"}, {"op": "write", "path": "{name}.png"},
              {"id": "sheet", "op": "vips.arrayjoin", "scope": "run", "in": "@thumb[*]"},
              {"id": "sheet-png", "op": "encode", "scope": "run", "format": "png"}, {"id": "sheet-save", "op": "write", "scope": "run", "path": "sheet.png"}]}
            """#,
            #"""
            {"version": 1, "graph": [{"op": "read"}, {"op": "decode", "access": "random"}, {"op": "vips.gaussblur", "sigma": 2},
              {"op": "sepia", "engine": "swift"}, {"op": "grayscale"}, {"op": "encode", "format": "webp"}, {"op": "write", "path": "{name}.webp"}]}
            """#,
        ]
        for (i, graph) in graphs.enumerated() {
            let (_, reports) = try await harness.run(graph, inputs: inputs, output: "out-\(i)")
            let truncated = try #require(reports.first { $0.item.source == inputs[0] })
            #expect(truncated.failure?.node == "decode", "graph \(i): \(truncated.failure?.message ?? "")")
            #expect(truncated.failure?.message.contains("Premature end of input file. The file is damaged") == true)
            let corrupt = try #require(reports.first { $0.item.source == inputs[1] })
            #expect(corrupt.status == .succeeded)
            #expect(corrupt.warnings == ["decode: VipsJpeg: Corrupt JPEG data: premature end of data segment"], "graph \(i)")
        }
    }

    /// Notes about metadata ("unknown EXIF resolution unit", common in camera files) are not
    /// damage: the photo comes out without warnings.
    @Test func metadataNotesAreNotDamage() async throws {
        let harness = try PresetHarness("damage-metadata")
        let file = harness.folder.appendingPathComponent("odd-unit.jpg")
        try FileManager.default.copyItem(at: Fixtures.samples.appendingPathComponent("Bridge.jpg"), to: file)
        let exiftool = Process()
        exiftool.executableURL = URL(fileURLWithPath: "/usr/bin/exiftool")
        exiftool.arguments = ["-q", "-overwrite_original", "-n", "-ResolutionUnit=7", "-XResolution=72", "-YResolution=72", file.path]
        try exiftool.run()
        exiftool.waitUntilExit()
        #expect(exiftool.terminationStatus == 0)
        let (summary, reports) = try await harness.run(preset(), inputs: [file.path, file.path])
        #expect(summary.succeeded == 2)
        #expect(reports.allSatisfy { $0.warnings.isEmpty }, "\(reports.map(\.warnings))")
    }
}
