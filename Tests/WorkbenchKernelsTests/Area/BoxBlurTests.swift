import Testing
import WorkbenchKernels

/// `BoxBlur` gives the rounded mean of the square around each pixel, edges repeated, whatever
/// the format and however the image is cut into regions.
@Suite struct BoxBlurTests {
    /// The mean written out: every sample of the square summed, rounded half up for integers.
    private func mean<S>(_ image: SampleImage<S>, radius: Int) -> SampleImage<S> {
        let area = (2 * radius + 1) * (2 * radius + 1)
        return image.map { x, y, b in
            var sum = 0.0
            for dy in -radius...radius { for dx in -radius...radius { sum += Double(image[x + dx, y + dy, b].floatValue) } }
            if S.format == .float { return S(clamping: Float(sum / Double(area))) }
            return S(clamping: Float((Int(sum) + area / 2) / area))
        }
    }

    @Test(arguments: [1, 4])
    func eightAndSixteenBitGiveTheRoundedMean(radius: Int) throws {
        let eight = SampleImage<UInt8>.noise(width: 23, height: 17, bands: 3, seed: 11)
        #expect(try eight.run(BoxBlur(radius: radius)) == mean(eight, radius: radius))
        let sixteen = SampleImage<UInt16>.noise(width: 23, height: 17, bands: 2, hasAlpha: true, seed: 12)
        #expect(try sixteen.run(BoxBlur(radius: radius)) == mean(sixteen, radius: radius))
    }

    @Test func floatGivesTheMean() throws {
        let image = SampleImage<Float>.noise(width: 19, height: 13, bands: 3, seed: 13)
        let blurred = try image.run(BoxBlur(radius: 2))
        #expect(blurred.largestDifference(mean(image, radius: 2)) < 1e-5)
        #expect(blurred.largestDifference(image) > 0.05)
    }

    @Test func regionsOfAnySizeGiveTheWholeImage() throws {
        let image = SampleImage<UInt8>.noise(width: 40, height: 30, bands: 3, seed: 14)
        let whole = try image.run(BoxBlur(radius: 3))
        #expect(try image.run(BoxBlur(radius: 3), tile: (7, 5)) == whole)
        #expect(try image.run(BoxBlur(radius: 3), tile: (1, 30)) == whole)
    }
}
