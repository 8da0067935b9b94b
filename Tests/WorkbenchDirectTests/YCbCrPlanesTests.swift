import Foundation
import Testing
@testable import WorkbenchDirect

/// A YCbCr JPEG's planes through libjpeg's raw data: decoded as stored at each DCT scale,
/// reduced plane by plane, and encoded as 4:2:0 without colour conversion.
@Suite struct YCbCrPlanesTests {
    /// A 4:2:0 JPEG (what `JPEGCodec.encode` writes below quality 90) of a smooth colour ramp.
    static func ramp(width: Int, height: Int) throws -> (file: Data, rgb: PixelImage) {
        var pixels: [UInt8] = []
        for y in 0..<height {
            for x in 0..<width {
                pixels += [UInt8(x * 255 / max(1, width - 1)), UInt8(y * 255 / max(1, height - 1)), UInt8((x + y) * 127 / max(1, width + height))]
            }
        }
        let rgb = PixelImage(width: width, height: height, bands: 3, pixels: pixels)
        return (try JPEGCodec.encode(rgb, quality: 80, exif: nil), rgb)
    }

    @Test func planesComeAsStoredAtEachScale() throws {
        let (file, _) = try Self.ramp(width: 37, height: 23)
        let full = try JPEGCodec.decodePlanes(file, shrink: 1)
        #expect(full.planes.map { [$0.width, $0.height, $0.bands] } == [[37, 23, 1], [19, 12, 1], [19, 12, 1]])
        #expect(full.ratios.map { [$0.x, $0.y] } == [[1, 1], [0.5, 0.5], [0.5, 0.5]])
        // From 1/2 libjpeg decodes chroma at twice the luma's DCT scale instead of upsampling it
        // later: the chroma planes are the luma's size.
        let half = try JPEGCodec.decodePlanes(file, shrink: 2)
        #expect(half.planes.map { [$0.width, $0.height] } == [[19, 12], [19, 12], [19, 12]])
        #expect(half.ratios.map { [$0.x, $0.y] } == [[1, 1], [1, 1], [1, 1]])
        let eighth = try JPEGCodec.decodePlanes(file, shrink: 8)
        #expect(eighth.planes.map { [$0.width, $0.height] } == [[5, 3], [5, 3], [5, 3]])
    }

    @Test func aThumbnailInPlanesLooksLikeTheOneInRGB() throws {
        let (file, _) = try Self.ramp(width: 300, height: 170)
        let header = try #require(JPEGCodec.header(file))
        let box = Thumbnail(header, width: 64, height: nil)
        #expect(box.geometry.reduces && !Thumbnail(header, width: 400, height: nil, fast: true).geometry.reduces)
        let planes = try box.makePlanes(from: file)
        let rgb = try box.make(from: file, header: header)
        #expect((planes.width, planes.height) == (64, 36) && (rgb.width, rgb.height) == (64, 36))
        #expect((planes.cb.width, planes.cb.height, planes.cr.width) == (32, 18, 32))
        // Both encoded and read back: the same picture within a level or two (a smooth ramp).
        let fromPlanes = try JPEGCodec.decode(try JPEGCodec.encode(planes, quality: 80, exif: nil), header: header.resized(64, 36), shrink: 1)
        let fromRGB = try JPEGCodec.decode(try JPEGCodec.encode(rgb, quality: 80, exif: nil), header: header.resized(64, 36), shrink: 1)
        let differences = zip(fromPlanes.pixels, fromRGB.pixels).map { abs(Int($0) - Int($1)) }
        let mean = Double(differences.reduce(0, +)) / Double(differences.count)
        #expect(mean < 1.5 && differences.max()! <= 8, "mean \(mean), max \(differences.max()!)")
    }

    @Test func planesOfTheWrongSizeOrQualityAreRefusedWithTheReason() throws {
        let plane = { (w: Int, h: Int) in PixelImage(width: w, height: h, bands: 1, pixels: [UInt8](repeating: 128, count: w * h)) }
        let good = YCbCrImage(y: plane(9, 5), cb: plane(5, 3), cr: plane(5, 3))
        #expect(try JPEGCodec.encode(good, quality: 80, exif: nil).count > 100)
        let wrong = YCbCrImage(y: plane(9, 5), cb: plane(4, 3), cr: plane(5, 3))
        let error = #expect(throws: DirectError.self) { try JPEGCodec.encode(wrong, quality: 80, exif: nil) }
        #expect("\(error.map { "\($0)" } ?? "")".contains("plane 1 is 4x3, not the 5x3 of 9x5"))
        let tooGood = #expect(throws: DirectError.self) { try JPEGCodec.encode(good, quality: 90, exif: nil) }
        #expect("\(tooGood.map { "\($0)" } ?? "")".contains("4:4:4"))
    }
}

extension JPEGHeader {
    /// This header as if the file were `width` × `height` (for decoding a thumbnail read back).
    func resized(_ width: Int, _ height: Int) -> JPEGHeader {
        JPEGHeader(width: width, height: height, components: components, colourSpace: colourSpace, isProgressive: isProgressive,
                   hasICCProfile: hasICCProfile, hasEXIF: hasEXIF, orientation: orientation)
    }
}
