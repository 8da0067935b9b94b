import Foundation
import Testing
import WorkbenchCore
import WorkbenchDirect
import WorkbenchTestSupport
@testable import WorkbenchVips

/// The direct path's thumbnail against libvips' `thumbnail_buffer` where the output size was
/// rounded (1287 × 871 into 480 px wide: 325 rows from 324.85). libvips then shares the
/// rounding out at both ends; a resampler that stretches its centres to fit the rounded size
/// instead drifts by up to half a pixel from libvips' at the far edge, which SSIMULACRA2 saw as
/// 13 points on a saturated photo.
@Suite struct DirectThumbnailTests {
    static func photo() throws -> Data {
        try ProgressiveFiles.cjpeg(try ProgressiveFiles.photo(width: 1287, height: 871), ["-quality", "92"])
    }

    /// Mean and largest absolute difference of two equal-length sample arrays, in levels.
    static func difference(_ a: [UInt8], _ b: [UInt8]) -> (mean: Double, max: Int) {
        let differences = zip(a, b).map { abs(Int($0) - Int($1)) }
        return (Double(differences.reduce(0, +)) / Double(max(1, differences.count)), differences.max() ?? 0)
    }

    static func libvips(_ data: Data, width: Int) throws -> (pixels: [UInt8], width: Int, height: Int) {
        let theirs = try VipsOperationCall.image("thumbnail_buffer", nil, ["buffer": .blob(data), "width": .int(width)]).inMemory().image
        let samples = try #require(theirs.samples)
        let count = theirs.width * theirs.height * theirs.bands
        return (Array(UnsafeBufferPointer(start: samples.assumingMemoryBound(to: UInt8.self), count: count)), theirs.width, theirs.height)
    }

    @Test func theRGBThumbnailIsLibvipsWithinItsRounding() throws {
        let data = try Self.photo()
        let header = try #require(JPEGCodec.header(data))
        let ours = try Thumbnail(header, width: 480, height: nil).make(from: data, header: header)
        let theirs = try Self.libvips(data, width: 480)
        #expect((ours.width, ours.height) == (theirs.width, theirs.height) && (ours.width, ours.height) == (480, 325))
        let (mean, largest) = Self.difference(ours.pixels, theirs.pixels)
        // The same windows; libvips' vertical vector pass keeps 6 bits of each weight, ours 12
        // (a flat area exact, an edge within a few levels).
        #expect(mean < 0.25 && largest <= 6, "mean \(mean), largest \(largest) levels")
    }

    /// The planes' luma against the luma of libvips' RGB thumbnail (JFIF's weights): the same
    /// centres, so within a conversion's rounding.
    @Test func thePlanesLumaIsLibvipsLuma() throws {
        let data = try Self.photo()
        let header = try #require(JPEGCodec.header(data))
        let planes = try Thumbnail(header, width: 480, height: nil).makePlanes(from: data)
        let theirs = try Self.libvips(data, width: 480)
        #expect((planes.width, planes.height) == (theirs.width, theirs.height))
        let luma = stride(from: 0, to: theirs.pixels.count, by: 3).map { (i: Int) -> UInt8 in
            let (r, g, b) = (Double(theirs.pixels[i]), Double(theirs.pixels[i + 1]), Double(theirs.pixels[i + 2]))
            let y: Double = 0.299 * r + 0.587 * g + 0.114 * b
            return UInt8(clamping: Int(y.rounded()))
        }
        let (mean, largest) = Self.difference(planes.y.pixels, luma)
        #expect(mean < 0.25 && largest <= 6, "mean \(mean), largest \(largest) levels")
    }
}
