import Foundation
import Testing
@testable import WorkbenchDirect

/// The direct path's parts without libvips: the resampler's weights, the thumbnail's geometry
/// and the EXIF block.
@Suite struct DirectPartsTests {
    @Test func everyOutputSamplesWeightsSumToOneAndFlatStaysFlat() {
        for (input, output) in [(80, 64), (200, 64), (10_000, 64), (7, 3), (5, 5)] {
            let taps = Resampler.taps(from: input, to: output)
            for o in 0..<output {
                let sum = taps.weights[(o * taps.count)..<((o + 1) * taps.count)].reduce(0) { $0 + Int($1) }
                #expect(sum == 1 << Resampler.fractionBits, "\(input)→\(output) at \(o)")
            }
        }
        let flat = PixelImage(width: 80, height: 50, bands: 3, pixels: [UInt8](repeating: 173, count: 80 * 50 * 3))
        let reduced = Resampler.reduce(flat, width: 64, height: 40)
        #expect(reduced.width == 64 && reduced.height == 40 && reduced.pixels.allSatisfy { $0 == 173 })
    }

    /// The C passes (AVX2 here, and the plain loops) against the formula written out: every byte
    /// the same, for sizes where the 16-sample blocks and 4-tap groups end mid-row, edges where the
    /// taps run off the image, grey and colour.
    @Test(arguments: [false, true])
    func thePassesWriteTheFormulasBytes(scalarOnly: Bool) {
        ReducePasses.scalarOnly(scalarOnly)
        defer { ReducePasses.scalarOnly(false) }
        var random = SystemRandomNumberGenerator()
        for (width, height, outWidth, outHeight, bands) in [(160, 100, 64, 40, 3), (80, 50, 64, 40, 3), (37, 23, 5, 3, 3),
                                                            (1024, 600, 256, 150, 3), (3, 2, 1, 1, 3), (41, 17, 41, 9, 1),
                                                            (1000, 3, 7, 3, 3), (2, 900, 2, 13, 1), (19, 1, 18, 1, 3),
                                                            (160, 100, 64, 40, 1), (80, 50, 32, 20, 1), (37, 23, 5, 3, 1),
                                                            (3000, 2, 7, 2, 1), (19, 1, 18, 1, 1)] {
            let pixels = (0..<(width * height * bands)).map { _ in UInt8.random(in: 0...255, using: &random) }
            let image = PixelImage(width: width, height: height, bands: bands, pixels: pixels)
            let reduced = Resampler.reduce(image, width: outWidth, height: outHeight)
            var expected = image
            if outHeight != height { expected = Self.formula(expected, width: width, height: outHeight) }
            if outWidth != width { expected = Self.formula(expected, width: outWidth, height: outHeight) }
            #expect(reduced.pixels == expected.pixels, "\(width)×\(height)×\(bands) → \(outWidth)×\(outHeight), scalar only: \(scalarOnly)")
        }
    }

    /// One pass (rows or columns, whichever size changes) as the resampler's doc states it.
    static func formula(_ image: PixelImage, width: Int, height: Int) -> PixelImage {
        let alongRows = height != image.height
        let taps = alongRows ? Resampler.taps(from: image.height, to: height) : Resampler.taps(from: image.width, to: width)
        var out = [UInt8]()
        for y in 0..<height {
            for x in 0..<width {
                for b in 0..<image.bands {
                    let o = alongRows ? y : x
                    var sum = 1 << (Resampler.fractionBits - 1)
                    for k in 0..<taps.count {
                        let i = min(max(Int(taps.first[o]) + k, 0), (alongRows ? image.height : image.width) - 1)
                        let sample = alongRows ? image.pixels[(i * image.width + x) * image.bands + b]
                                               : image.pixels[(y * image.width + i) * image.bands + b]
                        sum += Int(taps.weights[o * taps.count + k]) * Int(sample)
                    }
                    out.append(UInt8(clamping: sum >> Int(Resampler.fractionBits)))
                }
            }
        }
        return PixelImage(width: width, height: height, bands: image.bands, pixels: out)
    }

    @Test func aReducedEdgeKeepsItsPlaceAndOvershootIsClamped() {
        // Black left half, white right half: the reduced edge stays in the middle, and Lanczos'
        // ringing never leaves 0…255.
        var pixels = [UInt8]()
        for _ in 0..<10 { for x in 0..<100 { pixels.append(x < 50 ? 0 : 255) } }
        let reduced = Resampler.reduce(PixelImage(width: 100, height: 10, bands: 1, pixels: pixels), width: 40, height: 10)
        let row = Array(reduced.pixels[0..<40])
        #expect(row[0] == 0 && row[39] == 255 && row[17] < 30 && row[22] > 225, "\(row)")
    }

    @Test func theExifBlockSaysTheSizeAnd72DPI() {
        let block = ExifBlock.stripped(width: 640, height: 70_000)
        #expect(block.count == 186 && Array(block.prefix(6)) == Array("Exif\0\0".utf8))
        func long(_ at: Int) -> Int { (0..<4).reduce(0) { $0 | Int(block[at + $1]) << (8 * $1) } }
        #expect(long(166) == 640 && long(178) == 70_000)
        // XResolution 72/1 at the offset IFD0 gives (0x56 from the TIFF header, 6 bytes in).
        #expect(long(6 + 0x56) == 72 && long(6 + 0x5A) == 1)
    }

    @Test func eachExifOrientationIsTurnedUpright() {
        // Stored:  0 1 2
        //          3 4 5
        let stored = PixelImage(width: 3, height: 2, bands: 1, pixels: [0, 1, 2, 3, 4, 5])
        let expected: [Int: (Int, [UInt8])] = [
            1: (3, [0, 1, 2, 3, 4, 5]), 2: (3, [2, 1, 0, 5, 4, 3]), 3: (3, [5, 4, 3, 2, 1, 0]), 4: (3, [3, 4, 5, 0, 1, 2]),
            5: (2, [0, 3, 1, 4, 2, 5]), 6: (2, [3, 0, 4, 1, 5, 2]), 7: (2, [5, 2, 4, 1, 3, 0]), 8: (2, [2, 5, 1, 4, 0, 3]),
        ]
        for (orientation, (width, pixels)) in expected {
            let upright = stored.upright(from: orientation)
            #expect(upright.width == width && upright.height == 6 / width && upright.pixels == pixels, "orientation \(orientation)")
        }
    }
}
