import Foundation
import Testing
@testable import WorkbenchKernels

/// `LinearLightKernel` decodes sRGB to linear light, applies its map and encodes back: grey by
/// libvips' weights, and saturation that leaves greys grey.
@Suite struct LinearLightKernelTests {
    /// The sRGB transfer functions as the standard writes them.
    private func linear(_ v: Double) -> Double { v <= 0.04045 ? v / 12.92 : pow((v + 0.055) / 1.055, 2.4) }
    private func encoded(_ y: Double) -> Double { y <= 0.0031308 ? 12.92 * y : 1.055 * pow(y, 1 / 2.4) - 0.055 }

    @Test func greyIsLuminanceInLinearLightWithinOneLevel() throws {
        let image = SampleImage<UInt16>.noise(width: 17, height: 5, bands: 3, seed: 61)
        let grey = try image.run(LinearLightKernel(GreyMap()), outBands: 1)
        let reference = image.map(bands: 1) { x, y, _ in
            let c = (0..<3).map { linear(Double(image[x, y, $0]) / 65535) }
            return UInt16(clamping: Float(encoded(0.2 * c[0] + 0.7 * c[1] + 0.1 * c[2]) * 65535))
        }
        #expect(grey.largestDifference(reference) <= 1)
        #expect(try SampleImage<UInt8>(width: 2, height: 1, bands: 3, samples: [0, 0, 0, 255, 255, 255])
            .run(LinearLightKernel(GreyMap()), outBands: 1).samples == [0, 255])
    }

    @Test func saturationLeavesGreysAndAlphaAlone() throws {
        let image = SampleImage<UInt8>(width: 3, height: 1, bands: 4, hasAlpha: true,
                                       samples: [90, 90, 90, 11, 200, 120, 60, 12, 40, 60, 200, 13])
        let result = try image.run(KernelLibrary.saturation(1.5))
        #expect((0..<3).allSatisfy { abs(Int(result[0, 0, $0]) - 90) <= 1 })
        #expect([result[0, 0, 3], result[1, 0, 3], result[2, 0, 3]] == [11, 12, 13])
        // A colour moves away from its grey: red rises, blue falls for the orange pixel.
        #expect(result[1, 0, 0] > 200 && result[1, 0, 2] < 60)
        let greyed = try image.run(KernelLibrary.saturation(0))
        #expect(abs(Int(greyed[2, 0, 0]) - Int(greyed[2, 0, 2])) <= 2)
    }
}
