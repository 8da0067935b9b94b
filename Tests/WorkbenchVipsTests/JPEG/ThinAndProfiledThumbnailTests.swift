import Foundation
import Testing
import WorkbenchCore
import WorkbenchTestSupport
@testable import WorkbenchVips

/// Thumbnails of progressive files whose edges are a large part of them (strips a few pixels
/// tall, tiny squares) and of files with wide-gamut profiles, made as a run makes them (libvips'
/// headroom of 2, our decoder where it takes the file), against libvips' own thumbnail of the
/// same bytes. A low-pass decode's chroma (decoded at 1/8 and upsampled) shifted a 4:2:0 strip
/// 1000×9 by 7 levels at 1/4 and took a ProPhoto photo to 38 dB.
@Suite struct ThinAndProfiledThumbnailTests {
    static let samplings = ["1x1", "2x1", "1x2", "2x2"]
    static let sizes = [(1000, 9), (1000, 2), (15, 15), (33, 17), (641, 17), (9, 1000), (1600, 900)]

    private func options() -> DecodeOptions {
        DecodeOptions(failOn: .truncated, sequential: true, maxPixels: 100_000_000, pages: 1, autorotate: true, toSRGB: true)
    }

    /// Ours and libvips' thumbnails `width` wide (height unbounded) of `data`.
    private func thumbnails(_ data: Data, width: Int) throws -> (ours: VipsImage, theirs: VipsImage) {
        let source = try #require(try VipsDecoding.decode(Bytes(data, origin: "test.jpg"), options()).origin)
        let ours = try #require(try VipsDecoding.thumbnail(source, ThumbnailRequest(width: width)))
        var named: [String: VipsArgumentValue] = ["buffer": .blob(data), "width": .int(width), "height": .int(ResizeStage.unbounded)]
        if source.colourManaged { named["export_profile"] = .string("srgb") }
        // Read sequentially, the pixels are made once: each comparison reads them several times.
        return (try ours.inMemory().image, try VipsOperationCall.image("thumbnail_buffer", nil, named).inMemory().image)
    }

    /// The largest of the bands' mean differences, in levels.
    private func meanShift(_ ours: VipsImage, _ theirs: VipsImage) throws -> Double {
        let difference = try VipsOperationCall.image("subtract", ours, ["right": .image(theirs)])
        return try (0..<difference.bands).map { band in
            abs(try VipsOperationCall.image("extract_band", difference, ["band": .int(band)]).average())
        }.max() ?? 0
    }

    private func psnr(_ ours: VipsImage, _ theirs: VipsImage) throws -> Double {
        let difference = try VipsOperationCall.image("subtract", ours, ["right": .image(theirs)])
        let squares = try VipsOperationCall.image("multiply", difference, ["right": .image(difference)]).average()
        return squares == 0 ? .infinity : 10 * log10(255 * 255 / squares)
    }

    @Test(arguments: samplings)
    func thinShortAndOddFilesAtEveryScaleWithinALevelOfLibvips(sampling: String) throws {
        var checked = 0
        for (width, height) in Self.sizes {
            let data = try ProgressiveFiles.cjpeg(try ProgressiveFiles.photo(width: width, height: height),
                                                  ["-progressive", "-quality", "90", "-sample", sampling])
            for divisor in [2, 3, 4, 6, 8, 16] where width / divisor >= 1 {
                let (ours, theirs) = try thumbnails(data, width: width / divisor)
                #expect(ours.width == theirs.width && ours.height == theirs.height, "\(width)×\(height) \(sampling) /\(divisor)")
                guard ours.width == theirs.width && ours.height == theirs.height else { continue }
                let shift = try meanShift(ours, theirs)
                #expect(shift <= 1, "\(width)×\(height) \(sampling) to width \(width / divisor): mean shift \(shift)")
                checked += 1
            }
        }
        #expect(checked >= 30)
    }

    @Test func wideGamutFilesAtEveryScaleAt45DecibelsOrMore() throws {
        let folder = try Fixtures.temporaryDirectory("profiled-scales")
        for (name, profile) in [("ProPhoto", ROMMProfile.data), ("Adobe RGB", TestProfiles.adobeRGB), ("Display P3", TestProfiles.displayP3)] {
            let file = folder.appendingPathComponent("\(name).icc")
            try profile.write(to: file)
            for sampling in ["2x2", "1x1"] {
                let data = try ProgressiveFiles.cjpeg(try ProgressiveFiles.photo(width: 1600, height: 900),
                                                      ["-progressive", "-quality", "90", "-sample", sampling, "-icc", file.path])
                for width in [800, 533, 400, 200, 100] {
                    let (ours, theirs) = try thumbnails(data, width: width)
                    #expect(ours.width == theirs.width && ours.height == theirs.height)
                    let decibels = try psnr(ours, theirs)
                    #expect(decibels >= 45, "\(name) \(sampling) to width \(width): \(decibels) dB")
                }
            }
        }
    }
}
