import CVips
import Foundation
import Testing
import WorkbenchCore
import WorkbenchJPEG
import WorkbenchTestSupport
@testable import WorkbenchVips

/// Our progressive JPEG decoder (shrink-on-load at 1/2, 1/4, 1/8) against libjpeg's own decode
/// at the same scale, on progressive files libvips writes from a real photo: every sampling,
/// grey, restart markers; and the files it must leave to libvips.
@Suite struct ProgressiveJPEGTests {
    private typealias Image = WorkbenchVips.VipsImage

    /// Bridge.jpg (1600×900), written again by libvips' JPEG saver with `options`.
    private func progressive(_ options: [String: VipsArgumentValue], grey: Bool = false) throws -> Data {
        let data = try Data(contentsOf: Fixtures.samples.appendingPathComponent("Bridge.jpg"))
        var image = try Image.decode(data, origin: "Bridge.jpg")
        if grey { image = try VipsOperationCall.image("colourspace", image, ["space": .string("b-w")]) }
        return try #require(try VipsOperationCall.outputs("jpegsave_buffer", image, options).outputs.blobs.values.first)
    }

    /// libjpeg's decode at 1/`shrink` (through libvips), as bytes.
    private func libjpeg(_ data: Data, shrink: Int) throws -> (pixels: [UInt8], width: Int, height: Int, bands: Int) {
        let image = try VipsOperationCall.image("jpegload_buffer", nil, ["buffer": .blob(data), "shrink": .int(shrink)])
        var size = 0
        let memory = try #require(vips_image_write_to_memory(image.pointer, &size))
        defer { g_free(memory) }
        return (Array(UnsafeRawBufferPointer(start: memory, count: size)), image.width, image.height, image.bands)
    }

    /// PSNR of ours against libjpeg's over libjpeg's pixels (floor(size / shrink) of our ceil).
    private func psnr(_ ours: ProgressiveJPEG, _ theirs: (pixels: [UInt8], width: Int, height: Int, bands: Int)) -> Double {
        let cropped = ours.cropped(width: theirs.width, height: theirs.height)
        let squares = zip(cropped, theirs.pixels).reduce(0.0) { $0 + pow(Double($1.0) - Double($1.1), 2) }
        let mean = squares / Double(theirs.pixels.count)
        return mean == 0 ? .infinity : 10 * log10(255 * 255 / mean)
    }

    private func decode(_ data: Data, shrink: Int) -> ProgressiveJPEG? {
        try? data.progressive(shrink: shrink).get()
    }

    @Test(arguments: [
        ("4:2:0", ["interlace": VipsArgumentValue.bool(true), "Q": .int(85)]),
        ("4:4:4", ["interlace": .bool(true), "Q": .int(85), "subsample_mode": .string("off")]),
        ("restart markers", ["interlace": .bool(true), "Q": .int(75), "restart_interval": .int(7)]),
        ("optimised scans", ["interlace": .bool(true), "Q": .int(90), "optimize_scans": .bool(true)]),
    ])
    func matchesLibjpegAtEveryScale(_ variant: String, _ options: [String: VipsArgumentValue]) throws {
        let data = try progressive(options)
        for shrink in [2, 4, 8] {
            let ours = try #require(decode(data, shrink: shrink), "\(variant) at 1/\(shrink)")
            let theirs = try libjpeg(data, shrink: shrink)
            #expect(ours.bands == 3 && ours.width >= theirs.width && ours.width <= theirs.width + 1)
            #expect(ours.height >= theirs.height && ours.height <= theirs.height + 1)
            // The same DC at 1/8 (4:4:4: the very same pixels); at 1/2 and 1/4 libjpeg's reduced
            // inverse DCT mixes in frequencies above the kept ones, so close, not equal.
            let floor: Double = shrink == 8 && variant == "4:4:4" ? .infinity : 38
            #expect(psnr(ours, theirs) >= floor, "\(variant) at 1/\(shrink): \(psnr(ours, theirs)) dB")
        }
    }

    /// A 2×2 box average of interleaved samples (a reduction by 2 after the decode, as a
    /// thumbnail decoded at twice its size gets), over the even part.
    private func halved(_ pixels: [UInt8], width: Int, height: Int, bands: Int) -> [UInt8] {
        var out: [UInt8] = []
        for y in stride(from: 0, to: height - 1, by: 2) {
            for x in stride(from: 0, to: width - 1, by: 2) {
                for band in 0..<bands {
                    let at = { (dx: Int, dy: Int) in Int(pixels[((y + dy) * width + x + dx) * bands + band]) }
                    out.append(UInt8((at(0, 0) + at(1, 0) + at(0, 1) + at(1, 1) + 2) / 4))
                }
            }
        }
        return out
    }

    /// Low-pass (`lowPass`, for a thumbnail reduced 2× or more after its decode): the
    /// frequencies from 4 up left out, chroma at the smallest scale. It fits in a memory limit
    /// the full decode is refused under (16 coefficients a block at 1/2 where libjpeg's scale
    /// needs 49, and 64 for chroma), and once halved its pixels are libjpeg's within what those
    /// frequencies add.
    @Test(arguments: [("4:2:0", false), ("4:4:4", true)])
    func aLowPassDecodeTakesLessMemoryForTheSameThumbnail(_ variant: String, _ full: Bool) throws {
        var options: [String: VipsArgumentValue] = ["interlace": .bool(true), "Q": .int(85)]
        if full { options["subsample_mode"] = .string("off") }
        let data = try progressive(options)
        // Between what the two decodes need (4:4:4 low-pass: 4.6 MiB).
        let limit = (full ? 6 : 4) << 20
        let refused = data.withUnsafeBytes { bytes in
            Result { () throws(ProgressiveRefusal) in try ProgressiveJPEG.decode(bytes, shrink: 2, memoryLimit: limit) }
        }
        #expect(throws: ProgressiveRefusal.self) { try refused.get() }
        for shrink in [2, 4] {
            let lowPass = try data.withUnsafeBytes { bytes in
                try ProgressiveJPEG.decode(bytes, shrink: shrink, memoryLimit: limit, lowPass: true)
            }
            let theirs = try libjpeg(data, shrink: shrink)
            let ours = lowPass.cropped(width: theirs.width, height: theirs.height)
            let a = halved(ours, width: theirs.width, height: theirs.height, bands: 3)
            let b = halved(theirs.pixels, width: theirs.width, height: theirs.height, bands: 3)
            let mean = zip(a, b).reduce(0.0) { $0 + pow(Double($1.0) - Double($1.1), 2) } / Double(a.count)
            let decibels = 10 * log10(255 * 255 / mean)
            #expect(decibels >= 40, "\(variant) at 1/\(shrink), halved: \(decibels) dB")
            // Not libjpeg's pixels before the reduction: the test would pass without the option.
            #expect(psnr(lowPass, theirs) < decibels, "\(variant) at 1/\(shrink)")
        }
    }

    @Test func greyKeepsOneBand() throws {
        let data = try progressive(["interlace": .bool(true), "Q": .int(85)], grey: true)
        for shrink in [2, 4, 8] {
            let ours = try #require(decode(data, shrink: shrink))
            let theirs = try libjpeg(data, shrink: shrink)
            #expect(ours.bands == 1 && theirs.bands == 1)
            #expect(psnr(ours, theirs) >= (shrink == 8 ? .infinity : 38))
        }
    }

    @Test func leavesToLibvipsWhatItDoesNotRead() throws {
        let baseline = try progressive(["Q": .int(85)])
        #expect(decode(baseline, shrink: 8) == nil, "baseline JPEG")
        let file = try progressive(["interlace": .bool(true), "Q": .int(85)])
        #expect(decode(file, shrink: 3) == nil, "no DCT scale of 1/3 here")
        // Cut short: in the last scans, and in the first (DC) scan.
        for fraction in [0.9, 0.5, 0.05] {
            #expect(decode(file.prefix(Int(Double(file.count) * fraction)), shrink: 4) == nil, "truncated at \(fraction)")
            #expect(decode(file.prefix(Int(Double(file.count) * fraction)), shrink: 8) == nil, "truncated at \(fraction)")
        }
        #expect(decode(Data("not a jpeg at all".utf8), shrink: 2) == nil)
    }

    /// Damaged bytes anywhere: never a crash or a read outside the file; either a refusal or an
    /// image of the right size.
    @Test func damagedBytesNeverCrash() throws {
        let file = try progressive(["interlace": .bool(true), "Q": .int(85), "restart_interval": .int(3)])
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<60 {
            var damaged = file
            for _ in 0..<4 {
                let at = Int.random(in: 2..<damaged.count, using: &generator)
                damaged[at] = UInt8.random(in: 0...255, using: &generator)
            }
            for shrink in [2, 8] {
                if let image = decode(damaged, shrink: shrink) {
                    #expect(image.pixels.count == image.width * image.height * image.bands)
                }
            }
        }
    }

    /// Decode and thumbnail fused, as a preset's `thumbnail` after `decode` runs it: the photo
    /// comes out as libvips' own shrink-on-load makes it, within a JPEG's rounding.
    @Test func fusedThumbnailMatchesLibvips() throws {
        let data = try progressive(["interlace": .bool(true), "Q": .int(90)])
        let options = DecodeOptions(failOn: .truncated, sequential: true, maxPixels: 100_000_000, pages: 1, autorotate: true, toSRGB: true)
        let decoded = try VipsDecoding.decode(Bytes(data, origin: "progressive.jpg"), options)
        let source = try #require(decoded.origin)
        let header = try VipsOperationCall.image("jpegload_buffer", nil, ["buffer": .blob(data), "shrink": .int(4)])
        #expect(try VipsDecoding.progressive(source, shrink: 4, header: header) != nil, "our decoder takes the file")
        let ours = try #require(try VipsDecoding.thumbnail(source, ThumbnailRequest(width: 300, headroom: 1)))
        let theirs = try VipsOperationCall.image("thumbnail_buffer", nil, ["buffer": .blob(data), "width": .int(300)])
        #expect(ours.width == theirs.width && ours.height == theirs.height)
        let difference = try VipsOperationCall.image("abs", VipsOperationCall.image("subtract", ours, ["right": .image(theirs)]))
        #expect(try difference.average() < 2)
    }
}

extension ProgressiveJPEGTests {
    /// A ProPhoto (ROMM) photo thumbnailed at 1/8 through our decoder comes out as through
    /// libjpeg: the wide gamut magnifies any error in the chroma, which at 1/8 libjpeg makes with
    /// a 2×2 inverse DCT of each chroma block.
    @Test func aProPhotoPhotoAtOneEighthAsLibjpegMakesIt() throws {
        // In the suite's own folder, which goes when the process does (a file of /tmp stayed).
        let profile = try Fixtures.temporaryDirectory("romm").appendingPathComponent("romm.icc")
        try ROMMProfile.data.write(to: profile)
        let data = try ProgressiveFiles.cjpeg(try ProgressiveFiles.photo(width: 1600, height: 900),
                                              ["-progressive", "-quality", "90", "-sample", "2x2", "-icc", profile.path])
        func thumbnail(_ failOn: DecodeOptions.FailOn) throws -> Image {
            let options = DecodeOptions(failOn: failOn, sequential: true, maxPixels: 100_000_000, pages: 1, autorotate: true, toSRGB: true)
            let source = try #require(try VipsDecoding.decode(Bytes(data, origin: "romm.jpg"), options).origin)
            #expect(source.colourManaged)
            let header = try VipsOperationCall.image("jpegload_buffer", nil, ["buffer": .blob(data), "shrink": .int(8)])
            // Our decoder reads the file only where warnings may pass (as libjpeg's would).
            #expect((try VipsDecoding.progressive(source, shrink: 8, header: header) != nil) == (failOn == .truncated))
            return try #require(try VipsDecoding.thumbnail(source, ThumbnailRequest(width: 200, headroom: 1)))
        }
        let ours = try thumbnail(.truncated), theirs = try thumbnail(.error)
        #expect(ours.width == theirs.width && ours.height == theirs.height)
        let difference = try VipsOperationCall.image("subtract", ours, ["right": .image(theirs)])
        let squares = try VipsOperationCall.image("multiply", difference, ["right": .image(difference)]).average()
        let psnr = squares == 0 ? Double.infinity : 10 * log10(255 * 255 / squares)
        #expect(psnr >= 40, "\(psnr) dB")
    }
}

extension ProgressiveJPEGTests {
    /// Every EXIF orientation: the fused thumbnail comes out at libvips' own size, turned as
    /// libvips turns it (our decoder reads only upright files; the others go to libvips whole).
    @Test func everyOrientationAsLibvips() throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("oriented-\(getpid()).jpg")
        let plain = try ProgressiveFiles.cjpeg(try ProgressiveFiles.photo(width: 641, height: 203), ["-progressive", "-sample", "2x2"])
        for orientation in 1...8 {
            try plain.write(to: file)
            try ProgressiveFiles.run("/usr/bin/exiftool", ["-q", "-overwrite_original", "-n", "-Orientation=\(orientation)", file.path])
            let data = try Data(contentsOf: file)
            let options = DecodeOptions(failOn: .truncated, sequential: true, maxPixels: 100_000_000, pages: 1, autorotate: true, toSRGB: true)
            let source = try #require(try VipsDecoding.decode(Bytes(data, origin: "oriented.jpg"), options).origin)
            let ours = try #require(try VipsDecoding.thumbnail(source, ThumbnailRequest(width: 80, headroom: 1)))
            let theirs = try VipsOperationCall.image("thumbnail_buffer", nil, ["buffer": .blob(data), "width": .int(80), "height": .int(ResizeStage.unbounded)])
            #expect(ours.width == theirs.width && ours.height == theirs.height, "orientation \(orientation)")
            let difference = try VipsOperationCall.image("abs", VipsOperationCall.image("subtract", ours, ["right": .image(theirs)]))
            #expect(try difference.average() < 3, "orientation \(orientation)")
        }
    }
}
