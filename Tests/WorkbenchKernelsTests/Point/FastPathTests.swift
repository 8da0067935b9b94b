import Testing
@testable import WorkbenchKernels

/// The 8-bit shortcuts (pair tables, integer grey, the colour memo) give what the general loops
/// give, on buffers with odd widths, alpha, repeated colours and colliding memo slots.
@Suite struct FastPathTests {
    /// Runs `kernel` on a `width`×`height` buffer of `bands` samples per pixel; returns the output.
    private func run(_ kernel: any Kernel, _ input: [UInt8], width: Int, height: Int, bands: Int, alpha: Bool,
                     outBands: Int, format: SampleFormat = .uint8) throws -> [UInt8] {
        let image = KernelImage(width: width, height: height, bands: bands, hasAlpha: alpha, format: format, max: 255)
        var output = [UInt8](repeating: 0, count: width * height * outBands)
        let scratch = try kernel.makeScratch(for: image)
        try input.withUnsafeBytes { source in
            try output.withUnsafeMutableBytes { target in
                let region = KernelRegion(left: 0, top: 0, width: width, height: height, margin: 0,
                                          input: source.baseAddress!, inputStride: width * bands,
                                          output: target.baseAddress!, outputStride: width * outBands)
                try kernel.process(region, image: image, scratch: scratch)
            }
        }
        return output
    }

    private func noise(_ count: Int, seed: UInt64) -> [UInt8] {
        var state = seed
        return (0..<count).map { _ in
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return UInt8(truncatingIfNeeded: state >> 33)
        }
    }

    @Test func pairTablesMapLikeTheCurve() throws {
        let (width, height) = (37, 5)  // 111 samples a row: 13 words and a 7-byte tail
        let input = noise(width * height * 3, seed: 1)
        let kernel = ToneCurves.levels(inBlack: 20, inWhite: 230, gamma: 1.4, outBlack: 0, outWhite: 255)
        let output = try run(kernel, input, width: width, height: height, bands: 3, alpha: false, outBands: 3)
        for (sample, mapped) in zip(input, output) {
            #expect(mapped == UInt8(clamping: Float(kernel.curve(Double(sample) / 255) * 255)))
        }
    }

    @Test func integerGreyIsTheLinearLightGreyWithinOneLevel() throws {
        let (width, height) = (301, 7)
        for alpha in [false, true] {
            let bands = alpha ? 4 : 3
            let input = noise(width * height * bands, seed: 2)
            let fast = try run(KernelLibrary.grayscale(), input, width: width, height: height, bands: bands, alpha: alpha, outBands: alpha ? 2 : 1)
            let general = try run(LinearLightKernel(GreyMap()), input, width: width, height: height, bands: bands, alpha: alpha,
                                  outBands: alpha ? 2 : 1)
            #expect(fast != [UInt8](repeating: 0, count: fast.count))
            let worst = zip(fast, general).map { abs(Int($0) - Int($1)) }.max() ?? 0
            #expect(worst <= 1)
            if alpha { #expect(stride(from: 1, to: fast.count, by: 2).allSatisfy { fast[$0] == input[($0 / 2) * 4 + 3] }) }
        }
    }

    @Test func theColourMemoAnswersExactlyAsTheMapDoes() throws {
        let (width, height) = (64, 64)
        // Half the pixels repeat a few colours (memo hits), half are noise (misses, evictions).
        let random = noise(width * height * 4, seed: 3)
        var input = random
        for pixel in stride(from: 0, to: width * height, by: 2) { for b in 0..<3 { input[pixel * 4 + b] = UInt8(pixel % 5 * 50 + b) } }
        let memoised = try run(KernelLibrary.saturation(1.6), input, width: width, height: height, bands: 4, alpha: true, outBands: 4)
        let general = try run(LinearLightKernel(SaturationMap(amount: 1.6)), input, width: width, height: height, bands: 4, alpha: true,
                              outBands: 4)
        #expect(memoised == general)
        #expect(memoised != input)
    }
}
