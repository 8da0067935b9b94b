import Testing
@testable import WorkbenchKernels

/// The kernels that depend on where a pixel is: grain (noise fixed by position and seed) and
/// vignette (a factor by distance from the centre).
@Suite struct PositionMapsTests {
    @Test func grainIsDeterministicAndCentred() {
        let grain = GrainMap(amount: 0.2, seed: 42)
        var sum = 0.0
        for y in 0..<100 {
            for x in 0..<100 {
                let n = grain.noise(x: x, y: y)
                #expect(n >= -1 && n <= 1)
                sum += Double(n)
            }
        }
        #expect(abs(sum / 10000) < 0.02)
        #expect(grain.noise(x: 5, y: 9) == GrainMap(amount: 0.9, seed: 42).noise(x: 5, y: 9))
        #expect(grain.noise(x: 5, y: 9) != GrainMap(amount: 0.2, seed: 43).noise(x: 5, y: 9))
    }

    @Test func grainIsTheSameHoweverTheImageIsCut() throws {
        let image = SampleImage<UInt8>(width: 24, height: 16, bands: 3, samples: .init(repeating: 128, count: 24 * 16 * 3))
        let kernel = KernelLibrary.grain(amount: 0.3, seed: 7)
        let whole = try image.run(kernel)
        #expect(try image.run(kernel, tile: (5, 3)) == whole)
        #expect(whole != image)
        // One noise value per pixel: its three bands move alike.
        #expect(whole[3, 4, 0] == whole[3, 4, 1] && whole[3, 4, 1] == whole[3, 4, 2])
    }

    @Test func vignetteKeepsTheCentreAndDarkensTheCorners() throws {
        let image = SampleImage<UInt16>(width: 40, height: 30, bands: 4, hasAlpha: true,
                                        samples: .init(repeating: 60000, count: 40 * 30 * 4))
        let result = try image.run(KernelLibrary.vignette(strength: 0.5, radius: 0.4, softness: 0.3), tile: (9, 7))
        #expect(result[20, 15, 0] == 60000)
        #expect(result[0, 0, 0] == 30000 && result[39, 29, 2] == 30000)
        #expect(result[0, 0, 3] == 60000, "alpha is kept")
        // Falls steadily from the centre to the corner.
        let diagonal = (0...15).map { result[20 - $0, 15 - $0, 1] }
        #expect(zip(diagonal, diagonal.dropFirst()).allSatisfy { $0 >= $1 })
    }
}
