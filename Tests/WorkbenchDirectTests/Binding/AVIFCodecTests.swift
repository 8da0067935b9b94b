import CVips
import Foundation
import Testing
import WorkbenchCore
import WorkbenchDirect
import WorkbenchTestSupport
@testable import WorkbenchVips

/// libavif for the direct path: a real photo's planes and pixels encoded, then read back by
/// libvips (libheif) at the size and colours they were given.
@Suite struct AVIFCodecTests {
    /// libvips' decode of an AVIF file, as interleaved 8-bit samples.
    private func decoded(_ data: Data) throws -> (image: WorkbenchVips.VipsImage, pixels: [UInt8]) {
        let image = try VipsOperationCall.image("heifload_buffer", nil, ["buffer": .blob(data)])
        var size = 0
        let memory = try #require(vips_image_write_to_memory(image.pointer, &size))
        defer { g_free(memory) }
        return (image, Array(UnsafeRawBufferPointer(start: memory, count: size)))
    }

    /// The mean and largest difference between two runs of samples.
    private func difference(_ a: [UInt8], _ b: [UInt8]) -> (mean: Double, max: Int) {
        let d = zip(a, b).map { abs(Int($0) - Int($1)) }
        return (Double(d.reduce(0, +)) / Double(max(1, d.count)), d.max() ?? 0)
    }

    /// A sample photo's thumbnail, 240 wide, as 4:2:0 planes and as RGB.
    private func photo() throws -> (planes: YCbCrImage, rgb: PixelImage) {
        let file = try Data(contentsOf: Fixtures.samples.appendingPathComponent("Bridge.jpg"))
        let header = try #require(JPEGCodec.header(file))
        let thumbnail = Thumbnail(header, width: 240, height: nil)
        return (try thumbnail.makePlanes(from: file), try thumbnail.make(from: file, header: header))
    }

    @Test func aPhotosPlanesGoStraightThroughAndComeBackAsTheyWere() throws {
        let (planes, rgb) = try photo()
        let avif = try AVIFCodec.encode(planes, .init(quality: 90, speed: 8))
        let (image, pixels) = try decoded(avif)
        #expect((image.width, image.height, image.bands) == (planes.width, planes.height, 3))
        // Signalled as full-range BT.601, the planes decode to the photo's colours: a wrong
        // range or matrix would shift them by 10 levels and more.
        let (mean, _) = difference(pixels, rgb.pixels)
        #expect(mean < 3, "mean difference \(mean)")
    }

    @Test func rgbAndGreyPixelsAndAProfileAreWritten() throws {
        let (_, rgb) = try photo()
        let profile = TestProfiles.displayP3
        let avif = try AVIFCodec.encode(rgb, .init(quality: 90, speed: 8), icc: Array(profile))
        let (image, pixels) = try decoded(avif)
        #expect((image.width, image.height, image.bands) == (rgb.width, rgb.height, 3))
        #expect(difference(pixels, rgb.pixels).mean < 3)
        #expect(image.iccProfile == profile)
        let grey = PixelImage(width: 33, height: 17, bands: 1, pixels: (0..<(33 * 17)).map { UInt8($0 % 256) })
        let (greyImage, greyPixels) = try decoded(try AVIFCodec.encode(grey, .init(quality: 95, speed: 8)))
        // Read back as three equal bands: the grey it was.
        #expect((greyImage.width, greyImage.height, greyImage.bands) == (33, 17, 3))
        let firstBand = stride(from: 0, to: greyPixels.count, by: 3).map { greyPixels[$0] }
        #expect(difference(firstBand, grey.pixels).mean < 4)
        #expect(stride(from: 0, to: greyPixels.count, by: 3).allSatisfy { abs(Int(greyPixels[$0]) - Int(greyPixels[$0 + 2])) <= 2 })
    }

    @Test func aLowerQualityWritesFewerBytesAndLibaomIsThere() throws {
        let (planes, _) = try photo()
        let good = try AVIFCodec.encode(planes, .init(quality: 80, speed: 8)), poor = try AVIFCodec.encode(planes, .init(quality: 30, speed: 8))
        #expect(poor.count < good.count)
        #expect(AVIFCodec.Encoder.aom.availableName == "aom")
    }

    @Test func whatLibavifRefusesIsSaidInItsWords() {
        let odd = PixelImage(width: 4, height: 4, bands: 2, pixels: [UInt8](repeating: 0, count: 32))
        let error = #expect(throws: DirectError.self) { try AVIFCodec.encode(odd, .init(quality: 50, speed: 8)) }
        #expect("\(error.map { "\($0)" } ?? "")".contains("grey or RGB, not 2 bands"))
    }
}
