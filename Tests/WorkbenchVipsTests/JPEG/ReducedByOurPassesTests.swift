import CVips
import Foundation
import Testing
import WorkbenchCore
import WorkbenchDirect
import WorkbenchTestSupport
@testable import WorkbenchVips

/// A JPEG thumbnail whose only step after the DCT scale is a reduce is reduced by our passes
/// with libvips' windows (`Resampler.reduceAsLibvips`), not libvips' scalar horizontal pass:
/// the same size and geometry as libvips' `reduce`, within its rounding (libvips' vertical
/// vector pass keeps 6 bits of each weight, ours 12).
@Suite struct ReducedByOurPassesTests {
    private func options() -> DecodeOptions {
        DecodeOptions(failOn: .truncated, sequential: true, maxPixels: 100_000_000, pages: 1, autorotate: true, toSRGB: true)
    }

    /// The mean absolute difference and the largest, in levels.
    private func difference(_ ours: WorkbenchVips.VipsImage, _ theirs: WorkbenchVips.VipsImage) throws -> (mean: Double, max: Double) {
        let absolute = try VipsOperationCall.image("abs", VipsOperationCall.image("subtract", ours, ["right": .image(theirs)]))
        let info = try #require(VipsIntrospection.operation("max"))
        let input = try #require(info.mainInput)
        let outputs = try VipsOperationCall.run(info, [(input, .image(absolute))])
        let max = try #require(outputs.values["out"] as? Double)
        return (try absolute.average(), max)
    }

    /// A real photo's 1/2 decode reduced by factors under 4 on each axis, alike and apart: the
    /// size libvips gives, and every sample within libvips' rounding of its own.
    @Test(arguments: [(2.0, 2.0), (2.5, 2.5), (3.015625, 3.015625), (3.9, 2.2), (1.0, 3.3)])
    func ourPassesReduceAsLibvipsReduces(x: Double, y: Double) throws {
        let data = try ProgressiveFiles.cjpeg(try ProgressiveFiles.photo(width: 1544, height: 1028), ["-quality", "90"])
        let decoded = try VipsOperationCall.image("jpegload_buffer", nil, ["buffer": .blob(data), "shrink": .int(2)]).inMemory().image
        let pixels = try #require(vips_image_get_data(decoded.pointer))
        let reduced = try #require(Resampler.reduceAsLibvips(pixels, width: decoded.width, height: decoded.height, bands: 3, shrink: (x, y)))
        let ours = try #require(cvips_image_from_owned_pixels(reduced.pixels, reduced.width * reduced.height * 3, Int32(reduced.width),
                                                              Int32(reduced.height), 3, decoded.pointer)).wrapped
        let theirs = try VipsOperationCall.image("reduce", decoded, ["hshrink": .double(x), "vshrink": .double(y)]).inMemory().image
        #expect(ours.width == theirs.width && ours.height == theirs.height, "libvips makes \(theirs.width)×\(theirs.height)")
        let (mean, max) = try difference(ours, theirs)
        #expect(mean < 0.25, "mean difference \(mean) levels at \(x)×\(y)")
        #expect(max <= 4, "largest difference \(max) levels at \(x)×\(y)")
    }

    /// From a factor of 4 libvips shrinks by a box first: left to it.
    @Test func aFactorOfFourIsLeftToLibvips() {
        #expect(Resampler.reducesAsLibvips(width: 1544, height: 1028, shrink: (3.9, 3.9)))
        #expect(!Resampler.reducesAsLibvips(width: 1544, height: 1028, shrink: (4.0, 2.0)))
        #expect(!Resampler.reducesAsLibvips(width: 1544, height: 1028, shrink: (2.0, 0.5)))
    }

    /// A baseline file (libjpeg decodes it) and a progressive one (our decoder) thumbnailed as
    /// a run does: reduced by our passes, within libvips' rounding of `thumbnail_buffer`; a
    /// crop is left to libvips' thumbnail.
    @Test(arguments: [false, true])
    func aThumbnailThatOnlyReducesIsReducedByOurPasses(progressive: Bool) throws {
        let data = try ProgressiveFiles.cjpeg(try ProgressiveFiles.photo(width: 1600, height: 1000),
                                              progressive ? ["-progressive", "-quality", "88"] : ["-quality", "88"])
        let source = try #require(try VipsDecoding.decode(Bytes(data, origin: "photo.jpg"), options()).origin)
        var warned: [String] = []
        let ours = try #require(try VipsDecoding.thumbnail(source, ThumbnailRequest(width: 300), warned: { warned.append($0) }))
        #expect(ours.origin?.reducedByOurPasses == true)
        #expect(ours.origin?.jpegShrink == 2)
        #expect(warned.isEmpty)
        let theirs = try VipsOperationCall.image("thumbnail_buffer", nil, ["buffer": .blob(data), "width": .int(300)])
        #expect(ours.width == theirs.width && ours.height == theirs.height)
        let (mean, max) = try difference(ours.inMemory().image, theirs.inMemory().image)
        // The progressive file's decode keeps frequencies below 4 only (`lowPass`): its own share.
        #expect(mean < (progressive ? 0.4 : 0.25), "mean difference \(mean) levels")
        #expect(max <= (progressive ? 12 : 3), "largest difference \(max) levels")

        let cropped = try #require(try VipsDecoding.thumbnail(source, ThumbnailRequest(width: 300, height: 300, crop: "centre")))
        #expect(cropped.origin?.reducedByOurPasses == false)
        #expect(cropped.width == 300 && cropped.height == 300)
    }

    /// A cut-short baseline file decoded here for our passes says so, as the evaluation later
    /// would have: at the default it fails, blamed on the decode.
    @Test func aTruncatedFileFailsHereAsItWouldLater() throws {
        let data = try ProgressiveFiles.cjpeg(try ProgressiveFiles.photo(width: 1600, height: 1000), ["-quality", "88"])
        let cut = data.prefix(data.count / 2)
        let source = try #require(try VipsDecoding.decode(Bytes(Data(cut), origin: "cut.jpg"), options()).origin)
        #expect(throws: VipsError.self) {
            _ = try VipsDecoding.thumbnail(source, ThumbnailRequest(width: 300))
        }
    }
}

private extension UnsafeMutablePointer where Pointee == CVips.VipsImage {
    var wrapped: WorkbenchVips.VipsImage { WorkbenchVips.VipsImage(owning: self) }
}
