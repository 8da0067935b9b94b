import Foundation
import Testing
import WorkbenchCore
import WorkbenchTestSupport
@testable import WorkbenchVips

/// At the default `failOn`, what libjpeg decodes with a warning is decoded (with the warning in
/// the item's report), and what it stops on fails the item, every time: whether our progressive
/// decoder or libjpeg reads the file, and whether libvips keeps libjpeg's error or loses it.
@Suite struct LibjpegWarningTests {
    /// The segments of a JPEG up to its end: (offset, marker), a scan's entropy data skipped.
    static func segments(_ data: Data) -> [(offset: Int, marker: UInt8)] {
        let bytes = [UInt8](data)
        var found: [(Int, UInt8)] = []
        var i = 2
        while i + 3 < bytes.count, bytes[i] == 0xFF {
            let marker = bytes[i + 1]
            found.append((i, marker))
            if marker == 0xD9 { break }
            let length = Int(bytes[i + 2]) << 8 | Int(bytes[i + 3])
            i += 2 + length
            if marker == 0xDA {
                while i + 1 < bytes.count, !(bytes[i] == 0xFF && bytes[i + 1] != 0 && !(0xD0...0xD7).contains(bytes[i + 1])) { i += 1 }
            }
        }
        return found
    }

    private func progressivePhoto() throws -> Data {
        try ProgressiveFiles.cjpeg(try ProgressiveFiles.photo(width: 1600, height: 900), ["-progressive", "-quality", "85", "-sample", "2x2"])
    }

    /// Runs read → decode → (thumbnail) → PNG over `files`; item name → (status, warnings, failure).
    private func run(_ harness: PresetHarness, _ files: [String], thumbnail: Bool) async throws -> [String: ItemReport] {
        let resize = thumbnail ? "{\"id\": \"t\", \"op\": \"thumbnail\", \"width\": 200}, " : ""
        let json = """
            {"version": 1, "output": "out", "graph": [{"id": "s", "op": "read"}, {"id": "i", "op": "decode"}, \(resize)
              {"id": "e", "op": "encode", "format": "png"}, {"id": "w", "op": "write", "path": "{name}.png"}]}
            """
        let (_, reports) = try await harness.run(json, inputs: files)
        return Dictionary(uniqueKeysWithValues: reports.map { ($0.item.name, $0) })
    }

    @Test func strayBytesBeforeAMarkerAndAFrameTallerThanItsDataAreDecodedWithAWarning() async throws {
        let harness = try PresetHarness("libjpeg-warnings")
        let data = try progressivePhoto()
        var files: [String] = []
        // FF 00 before every scan after the first (between scans, where our decoder reads markers).
        for (n, segment) in Self.segments(data).filter({ $0.marker == 0xDA }).dropFirst().enumerated() {
            var damaged = data
            damaged.insert(contentsOf: [0xFF, 0x00], at: segment.offset)
            let file = harness.folder.appendingPathComponent("stray-\(n).jpg")
            try damaged.write(to: file)
            files.append(file.path)
        }
        // The frame header promising more rows than the scans hold: 900 → 1000 and → 5900.
        let frame = try #require(Self.segments(data).first { $0.marker == 0xC2 })
        for rows in [1000, 5900] {
            var taller = data
            taller[frame.offset + 5] = UInt8(rows >> 8)
            taller[frame.offset + 6] = UInt8(rows & 255)
            let file = harness.folder.appendingPathComponent("taller-\(rows).jpg")
            try taller.write(to: file)
            files.append(file.path)
        }
        #expect(files.count >= 6)
        for thumbnail in [true, false] {
            let reports = try await run(harness, files, thumbnail: thumbnail)
            #expect(reports.count == files.count)
            for (name, report) in reports.sorted(by: { $0.key < $1.key }) {
                #expect(report.status == .succeeded, "\(name) (thumbnail: \(thumbnail)): \(report.failure?.message ?? "")")
            }
            // libjpeg warns of the stray bytes where it reads them as a marker's (where the scan
            // before ends in a way that makes them its data, it says nothing, nor does `vips`).
            let warned = reports.values.filter { $0.warnings.contains { $0.contains("Corrupt JPEG data") } }.count
            #expect(warned >= files.count - 2, "\(reports.mapValues(\.warnings))")
        }
    }

    @Test func aDamagedHuffmanTableFailsItsItemInFortyRunsOfForty() async throws {
        let harness = try PresetHarness("libjpeg-errors")
        let data = try progressivePhoto()
        var files: [String] = []
        // Over-subscribed code lengths in the tables read between scans, which our decoder
        // declines and libjpeg stops on ("Bogus Huffman table definition").
        for (n, segment) in Self.segments(data).filter({ $0.marker == 0xC4 }).suffix(2).enumerated() {
            var damaged = data
            damaged[segment.offset + 5] = 0x05
            damaged[segment.offset + 6] = 0x07
            let file = harness.folder.appendingPathComponent("dht-\(n).jpg")
            try damaged.write(to: file)
            files.append(file.path)
        }
        #expect(files.count == 2)
        var failed = 0
        for round in 0..<20 {
            let reports = try await run(harness, files, thumbnail: round % 2 == 0)
            for report in reports.values {
                #expect(report.status == .failed, "\(report.item.name) written: \(report.warnings)")
                if report.status == .failed { failed += 1 }
            }
        }
        #expect(failed == 40)
        #expect(!FileManager.default.fileExists(atPath: harness.output("dht-0.png").path))
    }

    @Test func libjpegsWarningsAreToldFromItsErrors() {
        #expect(DamageCheck.isDecoderError("VipsJpeg: Bogus Huffman table definition"))
        #expect(DamageCheck.isDecoderError("VipsJpeg: Huffman table 0x01 was not defined"))
        #expect(DamageCheck.isDecoderError("error in tile 0 x 0"))
        #expect(!DamageCheck.isDecoderError("VipsJpeg: Corrupt JPEG data: bad Huffman code"))
        #expect(!DamageCheck.isDecoderError("VipsJpeg: Corrupt JPEG data: 2 extraneous bytes before marker 0xda"))
        #expect(!DamageCheck.isDecoderError("VipsJpeg: Premature end of JPEG file"))
        #expect(!DamageCheck.isDecoderError("read gave 2 warnings"))
    }
}
