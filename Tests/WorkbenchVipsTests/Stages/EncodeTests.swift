import Foundation
import Testing
import WorkbenchCore
import WorkbenchTestSupport
@testable import WorkbenchVips

/// `encode`: every format through its libvips saver, with the saver's own options checked
/// against the chosen format.
@Suite struct EncodeTests {
    private func encodePreset(_ options: String) -> String {
        #"{"version": 1, "graph": [{"op": "read"}, {"op": "decode"}, {"op": "thumbnail", "width": 96}, {"op": "encode", \#(options)}, {"op": "write", "path": "{name}.out"}]}"#
    }

    @Test(arguments: [
        ("jpeg", [UInt8]([0xFF, 0xD8, 0xFF])), ("png", [0x89, 0x50, 0x4E, 0x47]), ("gif", Array("GIF8".utf8)),
        ("tiff", [0x49, 0x49, 0x2A, 0x00]), ("webp", Array("RIFF".utf8)),
    ])
    func everyFormatIsWrittenByItsSaver(format: String, magic: [UInt8]) async throws {
        let harness = try PresetHarness("encode-\(format)")
        let (summary, _) = try await harness.run(encodePreset(#""format": "\#(format)""#), inputs: [try harness.sample("Bridge.jpg")])
        #expect(summary.succeeded == 1)
        let data = try Data(contentsOf: harness.output("Bridge.out"))
        #expect(Array(data.prefix(magic.count)) == magic)
        let decoded = try VipsImage.decode(data, origin: format)
        #expect(decoded.width == 96)
    }

    @Test(arguments: [("heif", "ftyp"), ("avif", "ftypavif")])
    func heifAndAVIFWhenThisLibvipsCanWriteThem(format: String, brand: String) async throws {
        let harness = try PresetHarness("encode-\(format)")
        let errors = harness.errors(encodePreset(#""format": "\#(format)""#))
        if let reason = EncodeFormat.named(format)?.unavailableReason() {
            // Not every libheif has every encoder: then validation says so.
            #expect(errors.contains { $0.contains(reason) })
            return
        }
        let (summary, _) = try await harness.run(encodePreset(#""format": "\#(format)", "Q": 40"#), inputs: [try harness.sample("Bridge.jpg")])
        #expect(summary.succeeded == 1)
        let data = try Data(contentsOf: harness.output("Bridge.out"))
        #expect(String(decoding: data.dropFirst(4).prefix(brand.count), as: UTF8.self) == brand)
    }

    @Test func optionsAreCheckedAgainstTheChosenFormat() throws {
        let harness = try PresetHarness("encode-options")
        let lossless = harness.errors(encodePreset(#""format": "jpeg", "lossless": true"#)).joined()
        #expect(lossless.contains(#""lossless" is not an option of jpeg (jpegsave_buffer); its options: "Q""#))
        let effort = harness.errors(encodePreset(#""format": "webp", "effort": 9"#)).joined()
        #expect(effort.contains(#""effort" for webp must be an integer 0…6, not 9"#))
        let compression = harness.errors(encodePreset(#""format": "png", "compression": "av1""#)).joined()
        #expect(compression.contains(#""compression" for png must be an integer 0…9"#))
        #expect(harness.errors(encodePreset(#""format": "heif", "compression": "av1", "effort": 2"#)).isEmpty)
        #expect(harness.errors(encodePreset(#""format": "jpeg", "quality": 90, "interlace": true, "strip": true"#)).isEmpty)
        #expect(harness.errors(encodePreset(#""format": "bmp""#)).joined().contains(#"expected one of "jpeg", "png""#))
    }

    @Test func saverOptionsTakeEffect() async throws {
        let harness = try PresetHarness("encode-effect")
        let input = try harness.sample("Bridge.jpg")
        func encoded(_ options: String) async throws -> Data {
            let (summary, reports) = try await harness.run(encodePreset(options), inputs: [input])
            #expect(summary.succeeded == 1, "\(reports.map { $0.failure?.message ?? "" })")
            return try Data(contentsOf: harness.output("Bridge.out"))
        }
        // A progressive JPEG has an SOF2 marker; a baseline one SOF0.
        let progressive = try await encoded(#""format": "jpeg", "interlace": true"#)
        let baseline = try await encoded(#""format": "jpeg""#)
        #expect(progressive.contains(Data([0xFF, 0xC2])) && !baseline.contains(Data([0xFF, 0xC2])))
        let small = try await encoded(#""format": "jpeg", "Q": 10"#)
        #expect(small.count < baseline.count)
        // An 8-bit palette PNG (colour type 3) instead of RGB (2).
        let palette = try await encoded(#""format": "png", "palette": true"#)
        #expect(palette[25] == 3)
        let rgb = try await encoded(#""format": "png""#)
        #expect(rgb[25] == 2)
    }
}

extension EncodeTests {
    /// A 16-bit PNG from an 8-bit photo with an ICC profile: libvips 8.14's saver alone reads past
    /// its buffers here (fuzz-graphs found it; the vips tool crashes on it). The pixels must be
    /// the 8-bit ones widened, row for row.
    @Test func sixteenBitPNGFromAPhotoWithAProfile() async throws {
        let harness = try PresetHarness("png16")
        let tagged = harness.folder.appendingPathComponent("tagged.jpg").path
        try Fixtures.vips(["icc_transform", try harness.sample("Bridge.jpg"), tagged, "srgb", "--input-profile", "srgb"])
        let (summary, reports) = try await harness.run(#"""
            {"version": 1, "graph": [{"op": "read"}, {"id": "image", "op": "decode"},
              {"id": "deep", "op": "encode", "format": "png", "bitdepth": 16, "metadata": "keep"}, {"id": "w16", "op": "write", "path": "deep.png"},
              {"id": "flat", "op": "encode", "format": "png", "from": "image"}, {"id": "w8", "op": "write", "path": "flat.png"}]}
            """#, inputs: [tagged])
        #expect(summary.succeeded == 1, "\(reports.compactMap { $0.failure?.message })")
        let deep = try VipsImage.decode(Data(contentsOf: harness.output("deep.png")), origin: "deep")
        let flat = try VipsImage.decode(Data(contentsOf: harness.output("flat.png")), origin: "flat")
        #expect(deep.bands == 3 && (deep.width, deep.height) == (flat.width, flat.height))
        #expect(try deep.average() > 255, "not 16-bit")
        let narrowed = try VipsOperationCall.image("linear", deep, ["a": .doubles([1.0 / 257]), "b": .doubles([0])])
        let difference = try VipsOperationCall.image("abs", VipsOperationCall.image("subtract", narrowed, ["right": .image(flat)]))
        let info = try #require(VipsIntrospection.operations["max"])
        let largest = try VipsOperationCall.run(info, [(try #require(info.mainInput), .image(difference))]).values["out"] as? Double
        #expect((largest ?? .infinity) <= 1, "largest difference \(largest ?? .infinity)")
    }
}
