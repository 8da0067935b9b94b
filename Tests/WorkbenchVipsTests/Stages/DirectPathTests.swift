import CVips
import Foundation
import Testing
import WorkbenchCore
import WorkbenchDirect
import WorkbenchTestSupport
@testable import WorkbenchVips

/// The direct path (decode → thumbnail → JPEG without libvips) against the libvips path, file by
/// file: the same outcome, size and metadata segments, and pixels within the golden tolerance —
/// on the reference photos and on the edge cases, most of which the direct path hands to libvips.
@Suite(.serialized) struct DirectPathTests {
    static func preset(width: Int, fast: Bool, engine: String) -> String {
        """
        {"version": 1, "graph": [{"id": "in", "op": "read"}, {"id": "image", "op": "decode", "engine": "\(engine)"},
          {"id": "small", "op": "thumbnail", "width": \(width), "fastShrink": \(fast)}, {"id": "jpeg", "op": "encode", "format": "jpeg", "Q": 80},
          {"id": "save", "op": "write", "path": "{name}.jpg"}]}
        """
    }

    /// The inputs: the bundled photos, then edge cases made from one of them.
    static func inputs(in folder: URL) throws -> URL {
        let inputs = folder.appendingPathComponent("in")
        try FileManager.default.createDirectory(at: inputs, withIntermediateDirectories: true)
        for photo in Fixtures.samplePhotos + [Fixtures.packageRoot.appendingPathComponent("Tests/Support/Photos/camera-cups.jpg")] {
            try FileManager.default.copyItem(at: photo, to: inputs.appendingPathComponent(photo.lastPathComponent))
        }
        let source = Fixtures.samples.appendingPathComponent("Bridge.jpg").path
        try ROMMProfile.data.write(to: inputs.appendingPathComponent("romm.icc"))
        try TestProfiles.grey.write(to: inputs.appendingPathComponent("grey.icc"))
        try Fixtures.sh("""
            set -e
            vips thumbnail '\(source)' base.ppm 500
            cjpeg -quality 90 -sample 2x1 base.ppm > sampling-422.jpg
            cjpeg -quality 90 -sample 1x2 base.ppm > sampling-440.jpg
            cjpeg -quality 90 -sample 1x1 base.ppm > sampling-444.jpg
            cjpeg -quality 90 -progressive base.ppm > progressive.jpg
            cjpeg -quality 90 -grayscale base.ppm > grey.jpg
            cjpeg -quality 90 -restart 2 base.ppm > restarts.jpg
            vips copy base.ppm 'profiled-srgb.jpg[Q=90,profile=srgb]'
            cjpeg -quality 90 -icc romm.icc base.ppm > profiled-prophoto.jpg
            cjpeg -quality 90 -grayscale -icc grey.icc base.ppm > profiled-grey.jpg
            for o in 2 3 4 5 6 7 8; do cp sampling-444.jpg orientation-$o.jpg; exiftool -q -overwrite_original -n -Orientation=$o orientation-$o.jpg; done
            vips crop base.ppm one.ppm 10 10 1 1 && cjpeg one.ppm > one-pixel.jpg
            vips black line.v 10000 1 --bands 3 && vips linear line.v line.ppm 1 90 --uchar && cjpeg line.ppm > line-10000x1.jpg
            vips icc_transform base.ppm cmyk.v cmyk --input-profile srgb && vips jpegsave cmyk.v cmyk.jpg
            head -c 9000 sampling-444.jpg > truncated.jpg
            python3 -c "d = bytearray(open('progressive.jpg', 'rb').read()); d[len(d) // 2:len(d) // 2 + 40] = bytes(40); open('corrupt.jpg', 'wb').write(d)"
            rm -f base.ppm one.ppm line.v line.ppm cmyk.v romm.icc grey.icc
            """, in: inputs)
        return inputs
    }

    /// The segments before the first scan, by marker: what a file carries besides its pixels.
    static func segments(_ data: Data) -> [(UInt8, Data)] {
        var found: [(UInt8, Data)] = []
        var at = 2
        while at + 4 <= data.count, data[at] == 0xFF, data[at + 1] != 0xDA {
            let length = Int(data[at + 2]) << 8 | Int(data[at + 3])
            found.append((data[at + 1], data.subdata(in: (at + 4)..<min(data.count, at + 2 + length))))
            at += 2 + length
        }
        return found
    }

    static func pixels(_ data: Data) throws -> (values: [UInt8], width: Int, height: Int, bands: Int) {
        let image = try VipsOperationCall.image("jpegload_buffer", nil, ["buffer": .blob(data)])
        var size = 0
        let memory = try #require(vips_image_write_to_memory(image.pointer, &size))
        defer { g_free(memory) }
        return (Array(UnsafeRawBufferPointer(start: memory, count: size)), image.width, image.height, image.bands)
    }

    /// Mean absolute difference and PSNR of two images' samples (of one size).
    static func difference(_ a: [UInt8], _ b: [UInt8]) -> (mean: Double, psnr: Double) {
        let differences = zip(a, b).map { abs(Int($0) - Int($1)) }
        let mean = Double(differences.reduce(0, +)) / Double(max(1, differences.count))
        let squares = differences.reduce(0.0) { $0 + Double($1 * $1) } / Double(max(1, differences.count))
        return (mean, squares == 0 ? Double.infinity : 10 * log10(255 * 255 / squares))
    }

    @Test(arguments: [(64, true), (300, true), (64, false)])
    func theDirectPathWritesWhatLibvipsWritesWithinTheGoldenTolerance(width: Int, fast: Bool) async throws {
        let harness = try PresetHarness("direct-\(width)-\(fast)")
        let inputs = try Self.inputs(in: harness.folder)
        let (directSummary, direct) = try await harness.run(Self.preset(width: width, fast: fast, engine: "auto"), inputs: [inputs.path], output: "direct")
        let (vipsSummary, vips) = try await harness.run(Self.preset(width: width, fast: fast, engine: "libvips"), inputs: [inputs.path], output: "vips")
        let count = try FileManager.default.contentsOfDirectory(atPath: inputs.path).count
        #expect(directSummary.items == vipsSummary.items && directSummary.items == count && count >= 25)
        #expect(directSummary.failed == vipsSummary.failed && directSummary.failed >= 1, "the truncated file fails both ways")
        let byName = Dictionary(vips.map { ($0.item.name, $0) }, uniquingKeysWith: { first, _ in first })
        for report in direct {
            let name = report.item.name
            let other = try #require(byName[name])
            #expect(report.status == other.status, "\(name)")
            #expect(report.failure?.message == other.failure?.message, "\(name)")
            guard report.status == .succeeded else { continue }
            let ours = try Data(contentsOf: harness.folder.appendingPathComponent("direct/\(name).jpg"))
            let theirs = try Data(contentsOf: harness.folder.appendingPathComponent("vips/\(name).jpg"))
            // Which path ran is in the report; the metadata is the same either way — a profile
            // included: camera-cups' sRGB one as it is, ProPhoto's converted to sRGB and libvips'
            // sRGB profile written, as the libvips path writes it; a grey photo's grey profile as
            // it is (libvips keeps grey as stored, profile and all).
            let leftToLibvips = ["cmyk", "corrupt"].contains(name)
            #expect(report.decodes.first?.contains("direct path: libjpeg") == !leftToLibvips, "\(name): \(report.decodes)")
            // One pixel, or one flat colour: any reduce gives the same values; and a photo no
            // wider than the target is not reduced at all (libjpeg's decode, turned, encoded).
            let input = try Data(contentsOf: inputs.appendingPathComponent("\(name).jpg"))
            let stored = try VipsOperationCall.image("jpegload_buffer", nil, ["buffer": .blob(input)])
            let quarterTurned = ["orientation-5", "orientation-6", "orientation-7", "orientation-8"].contains(name)
            let notReduced = (quarterTurned ? stored.height : stored.width) <= width
            let sameEitherWay = ["one-pixel", "line-10000x1"].contains(name) || notReduced
            // A grey photo at 64 px: decoded at 1/2 and reduced with libvips' windows by our
            // passes on both paths (no planes for one band): the same bytes.
            let sameWindows = width == 64 && ["grey", "profiled-grey"].contains(name)
            if leftToLibvips || sameEitherWay || sameWindows { #expect(ours == theirs, "\(name) should be libvips' own") }
            // Metadata: every segment before the scan, byte for byte (EXIF, ICC, tables, frame).
            let (a, b) = (Self.segments(ours), Self.segments(theirs))
            #expect(a.map(\.0) == b.map(\.0) && zip(a, b).allSatisfy { $0.1 == $1.1 }, "\(name): segments differ")
            let (p, q) = (try Self.pixels(ours), try Self.pixels(theirs))
            #expect((p.width, p.height, p.bands) == (q.width, q.height, q.bands), "\(name)")
            guard p.values.count == q.values.count else { continue }
            let (mean, psnr) = Self.difference(p.values, q.values)
            // The same decode and encoder settings and libvips' windows; below quality 90 the
            // direct path reduces a YCbCr file's chroma from its stored planes where libvips
            // upsamples it, reduces RGB and the encoder averages it down again, and its luma is
            // reduced from the file's own. Measured: 1.0–3.5 levels on average, 34.4–44 dB; the
            // most on saturated colours (camera-cups' chroma at 32 px from 240 stored samples;
            // Picture_0B's reds). With centres of its own, the reduce had given 32.7 dB.
            #expect(mean <= 3.6 && psnr >= 34, "\(name): mean \(mean), PSNR \(psnr)")
        }
    }

    /// A srcset on the direct path: one fit reads the decode, a smaller one is made from it,
    /// each encoded as WebP and JPEG.
    static func srcset(engine: String) -> String {
        """
        {"version": 1, "graph": [{"id": "in", "op": "read"}, {"id": "image", "op": "decode", "engine": "\(engine)"},
          {"id": "small", "op": "thumbnail", "width": "{w}", "foreach": {"w": [300, 120]}},
          {"id": "encoded", "op": "encode", "format": "{fmt}", "Q": 80, "foreach": {"fmt": ["webp", "jpeg"]}},
          {"id": "save", "op": "write", "path": "{name}-{w}.{fmt}"}]}
        """
    }

    /// A WebP file's chunks after its RIFF header: four-character kind and body.
    static func chunks(_ data: Data) -> [(String, Data)] {
        var found: [(String, Data)] = []
        var at = 12
        while at + 8 <= data.count {
            let kind = String(decoding: data[at..<(at + 4)], as: UTF8.self)
            let size = (0..<4).reduce(0) { $0 | Int(data[at + 4 + $1]) << (8 * $1) }
            found.append((kind, data.subdata(in: (at + 8)..<min(data.count, at + 8 + size))))
            at += 8 + size + (size & 1)
        }
        return found
    }

    /// The pixels of an encoded file (any format libvips reads), 8-bit.
    static func decoded(_ data: Data) throws -> (values: [UInt8], width: Int, height: Int, bands: Int) {
        let image = try VipsImage.decode(data, origin: "output")
        var size = 0
        let memory = try #require(vips_image_write_to_memory(image.pointer, &size))
        defer { g_free(memory) }
        return (Array(UnsafeRawBufferPointer(start: memory, count: size)), image.width, image.height, image.bands)
    }

    @Test func aSrcsetRunsAsOneDirectTreeWithinTheGoldenTolerance() async throws {
        let harness = try PresetHarness("direct-srcset")
        let inputs = try Self.inputs(in: harness.folder)
        let (directSummary, direct) = try await harness.run(Self.srcset(engine: "auto"), inputs: [inputs.path], output: "direct")
        let (vipsSummary, vips) = try await harness.run(Self.srcset(engine: "libvips"), inputs: [inputs.path], output: "vips")
        #expect(directSummary.items == vipsSummary.items && directSummary.failed == vipsSummary.failed && directSummary.failed >= 1)
        let byName = Dictionary(vips.map { ($0.item.name, $0) }, uniquingKeysWith: { first, _ in first })
        var tookTheDirectPath = 0
        for report in direct where report.status == .succeeded {
            let name = report.item.name
            #expect(byName[name]?.status == .succeeded, "\(name)")
            // One decode an item either way; the report says which decoder made it.
            #expect(report.decodes.count == 1 && byName[name]?.decodes.count == 1, "\(name): \(report.decodes)")
            let onDirectPath = report.decodes.first?.contains("direct path: libjpeg") == true
            if onDirectPath { tookTheDirectPath += 1 }
            #expect(onDirectPath == !["cmyk", "corrupt"].contains(name), "\(name): \(report.decodes)")
            // A photo narrower than 120 px makes only its 120 px copies (the 300 is the same), on both paths.
            let notMade = Set(report.notMade.map(\.path))
            #expect(notMade == Set(byName[name]?.notMade.map(\.path) ?? []), "\(name)")
            for file in ["\(name)-300.webp", "\(name)-300.jpeg", "\(name)-120.webp", "\(name)-120.jpeg"] where !notMade.contains(file) {
                let (ours, theirs) = (try Data(contentsOf: harness.folder.appendingPathComponent("direct/\(file)")),
                                      try Data(contentsOf: harness.folder.appendingPathComponent("vips/\(file)")))
                // The profile each file carries: the same bytes (the file's sRGB one, or libvips'
                // sRGB after a conversion), in WebPs as in JPEGs.
                #expect(ColourProfile.embedded(in: try VipsImage.decode(ours, origin: file)) == ColourProfile.embedded(in: try VipsImage.decode(theirs, origin: file)),
                        "\(file)")
                // A WebP's chunks: the same kinds, with the same EXIF block and profile.
                if file.hasSuffix(".webp") {
                    let (a, b) = (Self.chunks(ours), Self.chunks(theirs))
                    #expect(a.map(\.0) == b.map(\.0) && a.filter { $0.0 != "VP8 " && $0.0 != "VP8L" }.map(\.1) == b.filter { $0.0 != "VP8 " && $0.0 != "VP8L" }.map(\.1),
                            "\(file): \(a.map(\.0)) against \(b.map(\.0))")
                }
                let (p, q) = (try Self.decoded(ours), try Self.decoded(theirs))
                #expect((p.width, p.height, p.bands) == (q.width, q.height, q.bands), "\(file)")
                guard p.values.count == q.values.count else { continue }
                let (mean, psnr) = Self.difference(p.values, q.values)
                // As for one thumbnail (above, camera-cups' allowance included: 4.2 levels and 32.5
                // dB at 120 px); WebP's planes go in as the decode's, rescaled to WebP's range,
                // where libvips' WebP is made from RGB by libwebp.
                let cups = name == "camera-cups"
                #expect(mean <= (cups ? 4.5 : 4) && psnr >= (cups ? 32.5 : 33), "\(file): mean \(mean), PSNR \(psnr)")
            }
        }
        #expect(tookTheDirectPath >= 20, "\(tookTheDirectPath)")
    }
}

/// Which embedded profiles the direct path takes as sRGB: by name and primaries, as written by
/// libvips, lcms and the camera-cups photo; never ProPhoto (ROMM), whatever its name.
@Suite struct ICCProfileTests {
    @Test func sRGBProfilesAreKnownByNameAndPrimaries() throws {
        let folder = try Fixtures.temporaryDirectory("icc")
        try Fixtures.sh("vips copy '\(Fixtures.samples.appendingPathComponent("Bridge.jpg").path)' 'srgb.jpg[profile=srgb]'", in: folder)
        let libvips = try #require(JPEGCodec.iccProfile(try Data(contentsOf: folder.appendingPathComponent("srgb.jpg"))))
        let cups = try #require(JPEGCodec.iccProfile(try Data(contentsOf: Fixtures.cameraPhoto)))
        for bytes in [libvips, cups] {
            let profile = ICCProfile(bytes)
            #expect(profile.isSRGB && profile.description == "sRGB", "\(String(describing: profile.description))")
        }
        let romm = ICCProfile([UInt8](ROMMProfile.data))
        #expect(!romm.isSRGB && romm.description != nil)
        // A ProPhoto profile renamed "sRGB" keeps its primaries, and is not taken for sRGB.
        var renamed = [UInt8](ROMMProfile.data)
        if let at = renamed.firstRange(of: Array((romm.description ?? "?").utf8))?.lowerBound {
            renamed.replaceSubrange(at..<(at + 4), with: Array("sRGB".utf8))
        }
        #expect(ICCProfile(renamed).description?.contains("sRGB") == true && !ICCProfile(renamed).isSRGB)
        #expect(!ICCProfile([]).isSRGB && !ICCProfile(Array(repeating: 0, count: 200)).isSRGB)
    }
}

/// The direct path's conversion of an embedded profile to sRGB (lcms2) against libvips' own
/// (`icc_transform`, as `decode` runs it), pixel for pixel at full size: ProPhoto, Adobe RGB
/// (1998) and Display P3 profiles on a real photo.
@Suite struct ColourTransformTests {
    @Test(arguments: ["prophoto", "adobe", "p3"])
    func aProfileIsConvertedAsLibvipsConvertsIt(_ kind: String) throws {
        let folder = try Fixtures.temporaryDirectory("colour-\(kind)")
        let profile = kind == "prophoto" ? ROMMProfile.data : kind == "adobe" ? TestProfiles.adobeRGB : TestProfiles.displayP3
        try profile.write(to: folder.appendingPathComponent("profile.icc"))
        try Fixtures.sh("vips thumbnail '\(Fixtures.samples.appendingPathComponent("Bridge.jpg").path)' base.ppm 800 && cjpeg -quality 95 -icc profile.icc base.ppm > photo.jpg",
                               in: folder)
        let data = try Data(contentsOf: folder.appendingPathComponent("photo.jpg"))
        let options = DecodeOptions(failOn: .error, sequential: false, maxPixels: 100_000_000, pages: 1, autorotate: true, toSRGB: true)
        let theirs = try VipsDecoding.decode(Bytes(data, origin: "photo.jpg"), options)
        #expect(theirs.origin?.colourManaged == true)
        var size = 0
        let memory = try #require(vips_image_write_to_memory(theirs.pointer, &size))
        defer { g_free(memory) }
        let expected = Array(UnsafeRawBufferPointer(start: memory, count: size))
        let header = try #require(JPEGCodec.header(data))
        var ours = try JPEGCodec.decode(data, header: header, shrink: 1)
        let srgb = try #require(ColourProfile.libvipsSRGB)
        let embedded = try #require(JPEGCodec.iccProfile(data))
        let transform = try #require(ColourTransform.from(embedded, to: srgb))
        transform.apply(to: &ours)
        #expect(ours.pixels.count == expected.count)
        let (mean, psnr) = DirectPathTests.difference(ours.pixels, expected)
        // Each channel's average within a level of libvips'.
        for channel in 0..<3 {
            let a = stride(from: channel, to: expected.count, by: 3).reduce(0) { $0 + Int(ours.pixels[$1]) }
            let b = stride(from: channel, to: expected.count, by: 3).reduce(0) { $0 + Int(expected[$1]) }
            #expect(abs(Double(a - b)) / Double(expected.count / 3) <= 1, "\(kind) channel \(channel)")
        }
        #expect(psnr >= 45, "\(kind): mean \(mean), PSNR \(psnr)")
    }

    /// A transform is kept per source and target: ProPhoto to itself changes nothing, to sRGB
    /// everything saturated — whichever was asked for first (the cache was once keyed by the
    /// source alone, and the second target got the first's transform).
    @Test func eachTargetGetsItsOwnTransform() throws {
        let prophoto = Array(ROMMProfile.data), srgb = try #require(ColourProfile.libvipsSRGB)
        let pixels: [UInt8] = [0, 200, 220, 250, 40, 10, 128, 128, 128]
        var toSRGB = PixelImage(width: 3, height: 1, bands: 3, pixels: pixels)
        try #require(ColourTransform.from(prophoto, to: srgb)).apply(to: &toSRGB)
        var toItself = PixelImage(width: 3, height: 1, bands: 3, pixels: pixels)
        try #require(ColourTransform.from(prophoto, to: prophoto)).apply(to: &toItself)
        #expect(toSRGB.pixels != pixels)
        #expect(zip(toItself.pixels, pixels).allSatisfy { abs(Int($0) - Int($1)) <= 1 }, "\(toItself.pixels)")
    }

    /// libvips keeps a grey photo as stored, its profile with it (only colour goes through its
    /// profile to sRGB): the direct path takes one with a grey profile, converts nothing, and
    /// carries the profile — its decode is libvips' pixel for pixel.
    @Test func aGreyProfileIsKeptAsLibvipsKeepsIt() throws {
        let folder = try Fixtures.temporaryDirectory("colour-grey")
        try TestProfiles.grey.write(to: folder.appendingPathComponent("profile.icc"))
        try Fixtures.sh("vips thumbnail '\(Fixtures.samples.appendingPathComponent("Bridge.jpg").path)' base.ppm 800 && cjpeg -quality 95 -grayscale -icc profile.icc base.ppm > photo.jpg",
                               in: folder)
        let data = try Data(contentsOf: folder.appendingPathComponent("photo.jpg"))
        let options = DecodeOptions(failOn: .error, sequential: false, maxPixels: 100_000_000, pages: 1, autorotate: true, toSRGB: true)
        let theirs = try VipsDecoding.decode(Bytes(data, origin: "photo.jpg"), options)
        #expect(theirs.origin?.colourManaged == false && theirs.bands == 1)
        var size = 0
        let memory = try #require(vips_image_write_to_memory(theirs.pointer, &size))
        defer { g_free(memory) }
        let header = try #require(JPEGCodec.header(data))
        guard case .taken(let colour) = DirectSource.admission(header, Bytes(data, origin: "photo.jpg"), options) else {
            Issue.record("the direct path declined a grey photo with a grey profile")
            return
        }
        #expect(colour.transform == nil && colour.profile.map { Data($0) } == TestProfiles.grey)
        let ours = try JPEGCodec.decode(data, header: header, shrink: 1)
        #expect(ours.pixels == Array(UnsafeRawBufferPointer(start: memory, count: size)))
    }
}
