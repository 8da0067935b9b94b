import Testing
import WorkbenchKernels

/// `Pixelate` fills squares on a grid from the top-left corner with their mean; squares cut
/// by the edge average the pixels inside the image only.
@Suite struct PixelateTests {
    @Test func squaresHoldTheirMeanAndEdgeSquaresOnlyTheirOwnPixels() throws {
        // 5 × 3 grey, squares of 2: columns 0–1, 2–3, 4 and rows 0–1, 2.
        let image = SampleImage<UInt8>(width: 5, height: 3, bands: 1, samples: [
            10, 20, 30, 40, 50,
            30, 41, 70, 80, 90,
            100, 110, 120, 130, 140,
        ])
        #expect(try image.run(Pixelate(size: 2)).samples == [
            25, 25, 55, 55, 70,
            25, 25, 55, 55, 70,
            105, 105, 125, 125, 140,
        ])
    }

    @Test func regionsOffTheGridGiveTheWholeImage() throws {
        let image = SampleImage<UInt16>.noise(width: 31, height: 22, bands: 4, hasAlpha: true, seed: 31)
        let whole = try image.run(Pixelate(size: 6))
        #expect(try image.run(Pixelate(size: 6), tile: (7, 5)) == whole)
        // Every pixel of a square holds the same value, alpha included.
        #expect(whole[0, 0, 3] == whole[5, 5, 3] && whole[6, 0, 0] == whole[11, 5, 0])
        #expect(whole[0, 0, 0] != whole[6, 0, 0])
    }

    @Test func floatSquaresAreExactMeans() throws {
        let image = SampleImage<Float>(width: 2, height: 2, bands: 1, samples: [0.1, 0.2, 0.3, 0.6])
        let result = try image.run(Pixelate(size: 2))
        #expect(result.samples.allSatisfy { abs($0 - 0.3) < 1e-6 })
    }
}
