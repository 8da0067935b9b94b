import Testing
import WorkbenchKernels

/// `Convolution` computes `Σ mask · input / scale + offset` over the mask's square, edges
/// repeated, rounded and clipped in integer formats: by integer sums, by float sums, and in
/// two passes for a separable mask.
@Suite struct ConvolutionTests {
    private func convolve<S>(_ image: SampleImage<S>, _ mask: [[Double]], scale: Double, offset: Double) -> SampleImage<S> {
        let h = mask.count, w = mask[0].count
        return image.map { x, y, b in
            var sum = 0.0
            for my in 0..<h { for mx in 0..<w { sum += mask[my][mx] * Double(image[x + mx - w / 2, y + my - h / 2, b].floatValue) } }
            return S(clamping: Float(sum / scale + offset))
        }
    }

    @Test func anIntegerMaskOnEightBitsSumsExactly() throws {
        let sharpen: [[Double]] = [[0, -1, 0], [-1, 5, -1], [0, -1, 0]]
        let image = SampleImage<UInt8>.noise(width: 29, height: 11, bands: 3, seed: 41)
        let result = try image.run(Convolution(mask: sharpen, scale: 1, offset: 0))
        #expect(result == convolve(image, sharpen, scale: 1, offset: 0))
        // Noise sharpened clips at both ends.
        #expect(result.samples.contains(0) && result.samples.contains(255))
        let offset = try image.run(Convolution(mask: [[1, 0, -1], [2, 0, -2], [1, 0, -1]], scale: 4, offset: 128))
        #expect(offset == convolve(image, [[1, 0, -1], [2, 0, -2], [1, 0, -1]], scale: 4, offset: 128))
    }

    @Test func aSeparableMaskRunsInTwoPassesToTheSameResult() throws {
        let gaussian: [[Double]] = [[1, 2, 1], [2, 4, 2], [1, 2, 1]]
        let kernel = Convolution(mask: gaussian, scale: 16, offset: 0)
        #expect(kernel.separated?.row == [1, 2, 1])
        let eight = SampleImage<UInt8>.noise(width: 31, height: 12, bands: 3, seed: 42)
        #expect(try eight.run(kernel).largestDifference(convolve(eight, gaussian, scale: 16, offset: 0)) <= 1)
        let sixteen = SampleImage<UInt16>.noise(width: 17, height: 9, bands: 1, seed: 43)
        #expect(try sixteen.run(kernel).largestDifference(convolve(sixteen, gaussian, scale: 16, offset: 0)) <= 1)
        // Masks taller or wider than they are wide or tall: one pass starts further in than the margin.
        for mask: [[Double]] in [[[1, 2, 1], [2, 4, 2], [3, 6, 3], [2, 4, 2], [1, 2, 1]], [[1, 2, 3, 2, 1], [2, 4, 6, 4, 2], [1, 2, 3, 2, 1]]] {
            let kernel = Convolution(mask: mask, scale: 36, offset: 0)
            #expect(kernel.separated != nil)
            #expect(try eight.run(kernel).largestDifference(convolve(eight, mask, scale: 36, offset: 0)) <= 1)
        }
    }

    @Test func fractionalMasksAndFloatImagesSumInFloats() throws {
        let mask: [[Double]] = [[0.5, 1, 0.5], [1, -2.5, 1.5], [0.25, 1, 0.5]]
        #expect(Convolution(mask: mask, scale: 1, offset: 0).separated == nil)
        let sixteen = SampleImage<UInt16>.noise(width: 15, height: 10, bands: 3, seed: 44)
        #expect(try sixteen.run(Convolution(mask: mask, scale: 3, offset: 100)).largestDifference(convolve(sixteen, mask, scale: 3, offset: 100)) <= 1)
        let float = SampleImage<Float>.noise(width: 15, height: 10, bands: 1, seed: 45)
        #expect(try float.run(Convolution(mask: mask, scale: 3, offset: 0)).largestDifference(convolve(float, mask, scale: 3, offset: 0)) < 1e-5)
    }

    @Test func regionsOfAnySizeGiveTheWholeImage() throws {
        let mask: [[Double]] = [[2, 0, 1, 0, 2], [0, 1, 3, 1, 0], [1, 3, -9, 3, 1], [0, 1, 3, 1, 0], [2, 0, 1, 0, 2]]
        let image = SampleImage<UInt8>.noise(width: 33, height: 21, bands: 3, seed: 46)
        let kernel = Convolution(mask: mask, scale: 14, offset: 0)
        #expect(try image.run(kernel, tile: (8, 6)) == image.run(kernel))
    }
}
