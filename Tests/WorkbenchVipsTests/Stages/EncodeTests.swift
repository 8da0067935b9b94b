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

    /// One encode repeated over formats: each copy takes its own format's block over the node's
    /// options, and a block's options are checked against that format's saver.
    @Test func eachFormatTakesItsOwnBlock() async throws {
        let harness = try PresetHarness("encode-blocks")
        func preset(_ options: String) -> String {
            #"{"version": 1, "graph": [{"op": "read"}, {"op": "decode"}, {"op": "thumbnail", "width": 240}, {"id": "encoded", "op": "encode", "format": "{fmt}", "foreach": {"fmt": ["webp", "jpeg", "avif"]}, \#(options)}, {"op": "write", "path": "{name}.{fmt}"}]}"#
        }
        let input = try harness.sample("Bridge.jpg")
        func sizes(_ options: String) async throws -> [String: Int] {
            let (summary, _) = try await harness.run(preset(options), inputs: [input])
            #expect(summary.succeeded == 1)
            var sizes: [String: Int] = [:]
            for format in ["webp", "jpeg", "avif"] { sizes[format] = try Data(contentsOf: harness.output("Bridge.\(format)")).count }
            return sizes
        }
        let plain = try await sizes(#""Q": 60"#)
        // The node's Q for all, then each block over it: JPEG up, WebP down, AVIF as the node says.
        let blocks = try await sizes(#""Q": 60, "jpeg": {"Q": 95}, "webp": {"quality": 20}, "avif": {"effort": 2}"#)
        #expect(blocks["jpeg", default: 0] > plain["jpeg", default: 0] * 3 / 2, "\(blocks) \(plain)")
        #expect(blocks["webp", default: 0] < plain["webp", default: 0] * 3 / 4, "\(blocks) \(plain)")
        #expect(blocks["avif", default: 0] != plain["avif", default: 0], "effort 2 against 3: another encode")
        // An option one format lacks, given to the node, names the block that takes it.
        let shared = harness.errors(preset(#""effort": 4"#)).joined()
        #expect(shared.contains(#""effort" is not an option of jpeg (jpegsave_buffer)"#) && shared.contains(#"write it in each one's block, e.g. "avif": {"effort": …}"#), "\(shared)")
        // A block's options are its format's: checked where they are written.
        let wrong = harness.errors(preset(#""jpeg": {"effort": 4}"#)).joined()
        #expect(wrong.contains(#"graph[3].jpeg.effort"#) && wrong.contains(#""effort" is not one of these options: "Q""#), "\(wrong)")
        let range = harness.errors(preset(#""webp": {"effort": 9}"#)).joined()
        #expect(range.contains("graph[3].webp.effort") && range.contains("0…6"), "\(range)")
    }

    /// JPEG XL is written by libvips' jxlsave (its loader stays blocked as untrusted); the file
    /// is read back by the `vips` tool, which does not block it.
    @Test func jpegXLIsWritten() async throws {
        let harness = try PresetHarness("encode-jxl")
        let (summary, reports) = try await harness.run(encodePreset(#""format": "jxl", "effort": 3"#), inputs: [try harness.sample("Bridge.jpg")])
        #expect(summary.succeeded == 1, "\(reports.map(\.failure))")
        let data = try Data(contentsOf: harness.output("Bridge.out"))
        #expect(Array(data.prefix(2)) == [0xFF, 0x0A] || Array(data.prefix(12)) == [0, 0, 0, 0x0C, 0x4A, 0x58, 0x4C, 0x20, 0x0D, 0x0A, 0x87, 0x0A])
        let header = String(decoding: try ProgressiveFiles.run("/usr/bin/vipsheader", [harness.output("Bridge.out").path]), as: UTF8.self)
        #expect(header.contains("96x") && header.contains("jxlload"), "\(header)")
        // Loading one in a preset stays behind the untrusted switch.
        #expect(!VipsRuntime.untrustedOperationsAllowed)
        #expect(throws: VipsError.self) { try VipsImage.decode(data, origin: "Bridge.jxl") }
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
