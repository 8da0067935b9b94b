import CVips
import Foundation
import Testing
import WorkbenchCore
import WorkbenchDirect
import WorkbenchTestSupport
@testable import WorkbenchVips

/// The PNG decoder (libdeflate's inflate, our unfiltering, de-interlacing and expansion, 16-bit
/// samples in the machine's order) against libpng through
/// libvips, on PNGs of every kind written chunk by chunk (Tests/Support/make_pngs.py), and the
/// kinds it leaves to libpng.
@Suite struct PNGDecoderTests {
    static func files() throws -> URL {
        let folder = try Fixtures.temporaryDirectory("pngs")
        let script = Fixtures.packageRoot.appendingPathComponent("Tests/Support/make_pngs.py")
        try Fixtures.sh("python3 '\(script.path)' .", in: folder)
        return folder
    }

    private func decode(_ data: Data, maxPixels: Int = 100_000_000) -> Result<PNGDecoder, PNGRefusal> {
        data.withUnsafeBytes { bytes in Result { () throws(PNGRefusal) in try PNGDecoder(bytes, maxPixels: maxPixels) } }
    }

    /// libvips' own decode (libpng), as interleaved 8-bit samples.
    private func libpng(_ data: Data) throws -> (pixels: [UInt8], bands: Int) {
        let image = try VipsOperationCall.image("pngload_buffer", nil, ["buffer": .blob(data)])
        var size = 0
        let memory = try #require(vips_image_write_to_memory(image.pointer, &size))
        defer { g_free(memory) }
        return (Array(UnsafeRawBufferPointer(start: memory, count: size)), image.bands)
    }

    @Test func everyKindDecodesToLibpngsPixels() throws {
        let folder = try Self.files()
        let kinds = ["grey": 1, "grey-alpha": 2, "rgb": 3, "rgba": 4, "rgb-split": 3, "palette": 3, "palette-trns": 4,
                     "grey-trns": 2, "rgb-trns": 4, "text-and-gamma": 3,
                     "grey-1bit": 1, "grey-2bit": 1, "grey-4bit": 1, "palette-1bit": 3, "palette-2bit": 3, "palette-4bit": 3,
                     "grey-2bit-trns": 2, "palette-2bit-trns": 4, "grey16": 1, "grey16-alpha": 2, "rgb16": 3, "rgba16": 4,
                     "grey16-trns": 2, "rgb16-trns": 4, "rgba-opaque": 4, "interlaced": 3, "interlaced-rgba16": 4,
                     "interlaced-palette-2bit": 4]
        for (name, bands) in kinds {
            let data = try Data(contentsOf: folder.appendingPathComponent("\(name).png"))
            let theirs = try libpng(data)
            switch decode(data) {
            case .success(let ours):
                #expect(ours.width == 37 && ours.height == 23 && ours.bands == bands && theirs.bands == bands, "\(name)")
                #expect(ours.bytesPerSample == (name.contains("16") ? 2 : 1), "\(name)")
                #expect(ours.pixels == theirs.pixels, "\(name): not libpng's pixels")
            case .failure(let refusal):
                Issue.record("\(name) refused: \(refusal)")
            }
        }
    }

    @Test func whatLibpngReadsDifferentlyIsLeftToIt() throws {
        let folder = try Self.files()
        let reasons = [
            "animated": "animated", "bad-crc": "CRC does not match", "cut-short": "runs past the file's end",
            "index-past-palette": "palette index past the palette", "row-short": "does not inflate to the image",
        ]
        for (name, reason) in reasons {
            let data = try Data(contentsOf: folder.appendingPathComponent("\(name).png"))
            guard case .failure(let refusal) = decode(data) else {
                Issue.record("\(name) was decoded")
                continue
            }
            #expect(refusal.description.contains(reason), "\(name): \(refusal)")
        }
        let rgb = try Data(contentsOf: folder.appendingPathComponent("rgb.png"))
        guard case .failure(let refusal) = decode(rgb, maxPixels: 37 * 23 - 1) else { Issue.record("maxPixels not checked"); return }
        #expect(refusal.description.contains("maxPixels"))
        guard case .failure = decode(Data("not a png".utf8)) else { Issue.record("text decoded as a PNG"); return }
        // 3000×3000 RGBA, 36 MB of samples: libpng streams it, the decoder would hold it whole.
        try Fixtures.sh("""
            python3 -c "import struct, zlib; c = lambda k, b: struct.pack('>I', len(b)) + k + b + struct.pack('>I', zlib.crc32(k + b)); \
            open('huge.png', 'wb').write(b'\\x89PNG\\r\\n\\x1a\\n' + c(b'IHDR', struct.pack('>IIBBBBB', 3000, 3000, 8, 6, 0, 0, 0)) \
            + c(b'IDAT', zlib.compress(bytes(3000 * 12001))) + c(b'IEND', b''))"
            """, in: folder)
        let huge = try Data(contentsOf: folder.appendingPathComponent("huge.png"))
        guard case .failure(let tooLarge) = decode(huge) else { Issue.record("a 36 MB image was held whole"); return }
        #expect(tooLarge.description.contains("libpng streams in less memory"), "\(tooLarge)")
        #expect(try libpng(huge).bands == 4)
    }

    /// Damaged bytes anywhere: never a crash or a read outside the file; a refusal or the image.
    @Test func damagedBytesNeverCrash() throws {
        let data = try Data(contentsOf: try Self.files().appendingPathComponent("palette-trns.png"))
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<400 {
            var damaged = data
            for _ in 0..<Int.random(in: 1...4, using: &generator) {
                damaged[Int.random(in: 0..<damaged.count, using: &generator)] = UInt8.random(in: 0...255, using: &generator)
            }
            if case .success(let image) = decode(damaged) { #expect(image.pixels.count == image.width * image.height * image.bands) }
            _ = decode(damaged.prefix(Int.random(in: 0..<damaged.count, using: &generator)))
        }
    }
}
