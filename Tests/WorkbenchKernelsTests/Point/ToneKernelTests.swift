import Testing
@testable import WorkbenchKernels

/// Tone curves map black and white as declared, and `ToneKernel` applies its curve alike
/// through each path: pairs of 8-bit samples, the 8- and 16-bit tables, floats per sample.
@Suite struct ToneKernelTests {
    @Test func curvesMapBlackAndWhiteAsDeclared() {
        #expect(ToneCurves.invert().curve(0.25) == 0.75)
        let levels = ToneCurves.levels(inBlack: 51, inWhite: 204, gamma: 1, outBlack: 0, outWhite: 255)
        #expect(levels.curve(0.1) == 0 && levels.curve(0.9) == 1)
        #expect(abs(levels.curve(0.5) - 0.5) < 1e-9)
        let posterize = ToneCurves.posterize(levels: 3)
        #expect([0.1, 0.3, 0.8].map(posterize.curve) == [0, 0.5, 1])
        #expect(ToneCurves.solarize(threshold: 127.5).curve(0.8) == 1 - 0.8)
        #expect(ToneCurves.solarize(threshold: 127.5).curve(0.2) == 0.2)
    }

    /// The curve applied to each colour sample, rounded half up and clipped; alpha as it was.
    private func expected<S>(_ image: SampleImage<S>, _ kernel: ToneKernel) -> SampleImage<S> {
        image.map { x, y, b in
            let sample = image[x, y, b]
            if b >= image.colourBands { return sample }
            return S(clamping: Float(kernel.curve(Double(sample.floatValue) / Double(image.max)) * Double(image.max)))
        }
    }

    @Test func everyPathAppliesTheCurve() throws {
        let kernel = ToneCurves.levels(inBlack: 30, inWhite: 220, gamma: 0.7, outBlack: 15, outWhite: 250)
        // 13 × 3 = 39 samples a row: four 8-byte words and a 7-byte tail on the pair path.
        let pairs = SampleImage<UInt8>.noise(width: 13, height: 4, bands: 3, seed: 51)
        #expect(try pairs.run(kernel) == expected(pairs, kernel))
        let alpha = SampleImage<UInt8>.noise(width: 13, height: 4, bands: 4, hasAlpha: true, seed: 52)
        #expect(try alpha.run(kernel) == expected(alpha, kernel))
        let sixteen = SampleImage<UInt16>.noise(width: 9, height: 4, bands: 2, hasAlpha: true, seed: 53)
        #expect(try sixteen.run(kernel) == expected(sixteen, kernel))
        let float = SampleImage<Float>.noise(width: 9, height: 4, bands: 3, seed: 54)
        #expect(try float.run(kernel).largestDifference(expected(float, kernel)) < 1e-6)
    }

    @Test func invertTurnsEachSampleAround() throws {
        let image = SampleImage<UInt8>(width: 2, height: 1, bands: 3, samples: [0, 1, 128, 200, 254, 255])
        #expect(try image.run(ToneCurves.invert()).samples == [255, 254, 127, 55, 1, 0])
    }
}
