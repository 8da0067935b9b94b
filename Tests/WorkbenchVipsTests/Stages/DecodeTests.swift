import CVips
import Foundation
import Testing
import WorkbenchDirect
import WorkbenchCore
import WorkbenchTestSupport
@testable import WorkbenchVips

/// `decode` on real files: every common variant is normalised correctly, and every kind of bad
/// file fails its own item only.
@Suite struct DecodeTests {
    private typealias Image = WorkbenchVips.VipsImage

    /// Bridge.jpg (1600×900) shrunk to 320×180: the base of every generated variant.
    private func base() throws -> Image {
        let data = try Data(contentsOf: Fixtures.samples.appendingPathComponent("Bridge.jpg"))
        return try VipsOperationCall.image("thumbnail_image", Image.decode(data, origin: "Bridge.jpg"), ["width": .int(320)])
    }

    private func save(_ image: Image, _ saver: String, _ options: [String: VipsArgumentValue] = [:]) throws -> Data {
        return try #require(try VipsOperationCall.outputs(saver, image, options).outputs.blobs.values.first)
    }

    private func decode(_ data: Data, _ options: DecodeOptions? = nil) throws -> Image {
        try VipsDecoding.decode(Bytes(data, origin: "variant"), options ?? DecodeOptions(
            failOn: .error, sequential: false, maxPixels: 100_000_000, pages: 1, autorotate: true, toSRGB: true))
    }

    /// Mean absolute difference per band between two images of the same size (evaluates both).
    private func meanDifference(_ a: Image, _ b: Image) throws -> Double {
        let difference = try VipsOperationCall.image("subtract", a, ["right": .image(b)])
        return try VipsOperationCall.image("abs", difference).average()
    }

    private func withMetadata(_ image: Image, orientation: Int) throws -> Image {
        let copy = try VipsOperationCall.image("copy", image)
        vips_image_set_int(copy.pointer, "orientation", Int32(orientation))
        return copy
    }

    @Test func colourVariantsBecomeEightBitSRGB() throws {
        let original = try base()
        let variants: [(String, Data)] = [
            ("CMYK JPEG", try save(VipsOperationCall.image("colourspace", original, ["space": .string("cmyk")]), "jpegsave_buffer", ["Q": .int(95)])),
            ("16-bit PNG", try save(VipsOperationCall.image("colourspace", original, ["space": .string("rgb16")]), "pngsave_buffer")),
            ("progressive JPEG", try save(original, "jpegsave_buffer", ["interlace": .bool(true), "Q": .int(95)])),
            ("WebP", try save(original, "webpsave_buffer", ["Q": .int(95)])),
            ("TIFF", try save(original, "tiffsave_buffer")),
        ]
        for (name, data) in variants {
            let decoded = try decode(data)
            #expect((decoded.width, decoded.height, decoded.bands) == (320, 180, 3), "\(name)")
            #expect(decoded.format == VIPS_FORMAT_UCHAR && decoded.interpretation == VIPS_INTERPRETATION_sRGB, "\(name)")
            // CMYK goes through a profile both ways; the rest are nearly lossless.
            #expect(try meanDifference(decoded, original) < (name == "CMYK JPEG" ? 12 : 3), "\(name)")
        }
    }

    @Test func profilesThatOnlySaySRGBAreRecognised() throws {
        let original = try base()
        let tagged = try VipsOperationCall.image("icc_transform", original, ["output_profile": .string("srgb")])
        let srgb = try #require(ColourProfile.embedded(in: tagged))
        #expect(ColourProfile.describesSRGB(srgb), "\(ICCProfile([UInt8](srgb)).description ?? "no description")")
        // libvips' own sRGB profile is what a conversion attaches.
        #expect(ColourProfile.libvipsSRGB == [UInt8](srgb))
        let cmyk = try #require(ColourProfile.embedded(in: VipsOperationCall.image("icc_transform", original, ["output_profile": .string("cmyk")])))
        #expect(!ColourProfile.describesSRGB(cmyk))
        #expect(ICCProfile([UInt8](cmyk)).description?.isEmpty == false)
        #expect(ICCProfile([1, 2, 3]).description == nil)
    }

    @Test func greyAndAlphaAreKept() throws {
        let original = try base()
        let grey = try decode(save(VipsOperationCall.image("colourspace", original, ["space": .string("b-w")]), "jpegsave_buffer"))
        #expect(grey.bands == 1 && grey.interpretation == VIPS_INTERPRETATION_B_W)

        let rgba = try VipsOperationCall.image("bandjoin_const", original, ["c": .doubles([128])])
        let decoded = try decode(save(rgba, "pngsave_buffer"))
        #expect(decoded.bands == 4 && decoded.hasAlpha)
        let alpha = try VipsOperationCall.image("extract_band", decoded, ["band": .int(3)])
        #expect(try alpha.average() == 128)
    }

    @Test func exifOrientationIsAppliedUnlessTurnedOff() throws {
        let rotated = try save(withMetadata(base(), orientation: 6), "jpegsave_buffer")
        let upright = try decode(rotated)
        #expect((upright.width, upright.height) == (180, 320))
        var options = DecodeOptions(failOn: .error, sequential: true, maxPixels: 100_000_000, pages: 1,
                                    autorotate: false, toSRGB: true)
        let asStored = try decode(rotated, options)
        #expect((asStored.width, asStored.height) == (320, 180))
        // Streaming cannot turn an image: a sequential decode of a rotated file falls back to random access.
        options.autorotate = true
        let streamed = try decode(rotated, options)
        #expect((streamed.width, streamed.height) == (180, 320))
        _ = try streamed.average()
    }

    @Test func animatedGIFFirstPageOrAll() throws {
        let frame = try VipsOperationCall.image("thumbnail_image", base(), ["width": .int(64)])
        // Different frames: the GIF saver merges identical neighbours into one.
        let inverted = try VipsOperationCall.image("invert", frame)
        let flipped = try VipsOperationCall.image("flip", frame, ["direction": .string("vertical")])
        let frames = try VipsOperationCall.image("arrayjoin", nil, ["in": .images([frame, inverted, flipped]), "across": .int(1)])
        let gif = try save(frames, "gifsave_buffer", ["page_height": .int(frame.height)])
        let first = try decode(gif)
        #expect((first.width, first.height) == (64, frame.height))
        let all = try decode(gif, DecodeOptions(failOn: .error, sequential: false, maxPixels: 100_000_000, pages: -1,
                                                autorotate: true, toSRGB: true))
        #expect((all.width, all.height) == (64, 3 * frame.height))
        #expect(vips_image_get_page_height(all.pointer) == Int32(frame.height))
    }

    @Test func shrinkOnLoadMatchesDecodeThenResize() async throws {
        let harness = try PresetHarness("fused")
        let input = try harness.sample("Bridge.jpg")
        func thumbnail(_ graph: String, _ name: String) async throws -> Image {
            let (summary, _) = try await harness.run(#"{"version": 1, "graph": [{"op": "read"}, \#(graph), {"op": "encode", "format": "png"}, {"op": "write", "path": "\#(name).png"}]}"#, inputs: [input])
            #expect(summary.succeeded == 1)
            return try Image.decode(Data(contentsOf: harness.output("\(name).png")), origin: name)
        }
        // Fused: decode straight into thumbnail. Unfused: a copy in between keeps them apart.
        let fused = try await thumbnail(#"{"op": "decode"}, {"op": "thumbnail", "width": 200, "fastShrink": false}"#, "fused")
        let separate = try await thumbnail(#"{"op": "decode"}, {"op": "vips.copy"}, {"op": "thumbnail", "width": 200}"#, "separate")
        #expect((fused.width, fused.height) == (separate.width, separate.height))
        #expect(try meanDifference(fused, separate) < 2)
        // The fast shrink decodes at 1/8 here (1600 → 200): the size may round down a pixel.
        let fast = try await thumbnail(#"{"op": "decode"}, {"op": "thumbnail", "width": 200}"#, "fast")
        #expect(fast.width == 200 && abs(fast.height - separate.height) <= 1)
        let common = try VipsOperationCall.image("extract_area", fast, ["left": .int(0), "top": .int(0), "width": .int(200), "height": .int(min(fast.height, separate.height))])
        let reference = try VipsOperationCall.image("extract_area", separate, ["left": .int(0), "top": .int(0), "width": .int(200), "height": .int(min(fast.height, separate.height))])
        #expect(try meanDifference(common, reference) < 4)
    }

    /// A PNG whose header declares `width` × `height`, followed by one tiny data chunk.
    private func pngHeader(width: UInt32, height: UInt32) -> Data {
        func bigEndian(_ value: UInt32) -> [UInt8] { [24, 16, 8, 0].map { UInt8((value >> $0) & 0xFF) } }
        func chunk(_ type: String, _ data: [UInt8]) -> [UInt8] {
            let body = Array(type.utf8) + data
            var crc: UInt32 = 0xFFFF_FFFF
            for byte in body {
                crc ^= UInt32(byte)
                for _ in 0..<8 { crc = (crc >> 1) ^ (crc & 1 == 1 ? 0xEDB8_8320 : 0) }
            }
            return bigEndian(UInt32(data.count)) + body + bigEndian(~crc)
        }
        // A stored (uncompressed) zlib stream of one zero byte.
        let idat: [UInt8] = [0x78, 0x01, 0x01, 0x01, 0x00, 0xFE, 0xFF, 0x00, 0x00, 0x01, 0x00, 0x01]
        return Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + chunk("IHDR", bigEndian(width) + bigEndian(height) + [8, 2, 0, 0, 0])
                    + chunk("IDAT", idat) + chunk("IEND", []))
    }

    @Test func badFilesFailTheirOwnItemOnly() async throws {
        let harness = try PresetHarness("bad-files")
        let good = try Data(contentsOf: URL(fileURLWithPath: harness.sample("Bridge.jpg")))
        var generator = SystemRandomNumberGenerator()
        let files: [String: Data] = [
            "empty.jpg": Data(),
            "three.jpg": Data([0xFF, 0xD8, 0xFF]),
            "noise.jpg": Data([0xFF, 0xD8, 0xFF, 0xE0] + (0..<4000).map { _ in UInt8.random(in: 0...255, using: &generator) }),
            "cut.jpg": good.prefix(good.count / 2),
            "text.jpg": Data("This is not a photograph, only a text file with a .jpg name.\n".utf8),
            "bomb.png": pngHeader(width: 60000, height: 60000),
        ]
        for (name, data) in files { try data.write(to: harness.folder.appendingPathComponent(name)) }
        let (summary, reports) = try await harness.run(#"""
            {"version": 1, "graph": [{"op": "read"}, {"op": "decode"}, {"op": "thumbnail", "width": 100},
              {"op": "encode", "format": "jpeg"}, {"op": "write", "path": "{name}.jpg"}]}
            """#, inputs: ["Bridge.jpg"] + files.keys.sorted())
        #expect(summary.succeeded == 1 && summary.failed == files.count)
        let failures = Dictionary(uniqueKeysWithValues: reports.map { ($0.item.name, $0.failure?.message ?? "") })
        #expect(failures["Bridge"] == "")
        for name in ["empty", "three", "text"] {
            #expect(failures[name]?.contains("Cannot decode") == true, "\(name): \(failures[name] ?? "")")
        }
        #expect(failures["noise"]?.isEmpty == false)
        #expect(failures["cut"]?.lowercased().contains("premature end") == true, "cut: \(failures["cut"] ?? "")")
        #expect(failures["bomb"]?.contains("is 60000×60000 (3600 MP), more than the limit of 100 MP") == true, "\(failures["bomb"] ?? "")")
        #expect(Fixtures.files(in: harness.folder.appendingPathComponent("out")) == ["Bridge.jpg"])
    }

    @Test func untrustedLoadersAreBlockedUnlessAllowed() throws {
        let svg = Data(#"<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><rect width="10" height="10"/></svg>"#.utf8)
        guard VipsIntrospection.operations["svgload_buffer"] != nil else { return } // built without librsvg
        #expect(!VipsRuntime.untrustedOperationsAllowed)
        #expect {
            try decode(svg)
        } throws: { error in
            "\(error)".contains("operation is blocked (blocked as untrusted") && "\(error)".contains("--allow-untrusted")
        }
    }
}
