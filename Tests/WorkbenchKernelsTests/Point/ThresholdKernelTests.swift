import Testing
import WorkbenchKernels

/// `ThresholdKernel` makes each pixel black or white by its luma, a pixel exactly at the level
/// going white, in 8 and 16 bits, colour or grey, alpha kept.
@Suite struct ThresholdKernelTests {
    @Test func aPixelAtTheLevelGoesWhite() throws {
        // Luma of (100, 100, 100) is exactly 100; of (99, 100, 100) just under.
        let image = SampleImage<UInt8>(width: 3, height: 1, bands: 4, hasAlpha: true,
                                       samples: [100, 100, 100, 7, 99, 100, 100, 8, 0, 140, 0, 9])
        #expect(try image.run(ThresholdKernel(level: 100)).samples == [255, 255, 255, 7, 0, 0, 0, 8, 255, 255, 255, 9])
    }

    @Test func sixteenBitLevelsAreOnTheSameScale() throws {
        // 100 on 0…255 is 25,700 on 0…65,535.
        let grey = SampleImage<UInt16>(width: 3, height: 1, bands: 1, samples: [25699, 25700, 65535])
        #expect(try grey.run(ThresholdKernel(level: 100)).samples == [0, 65535, 65535])
    }

    @Test func lumaWeighsGreenMost() throws {
        // Pure green (luma 182) is above 150, pure red (54) and blue (18) below.
        let image = SampleImage<UInt8>(width: 3, height: 1, bands: 3, samples: [255, 0, 0, 0, 255, 0, 0, 0, 255])
        #expect(try image.run(ThresholdKernel(level: 150)).samples == [0, 0, 0, 255, 255, 255, 0, 0, 0])
    }
}
