import Testing
import WorkbenchKit
@testable import FilmLab

/// Runs `kernel` on one row of 8-bit RGB pixels of an image `width` wide.
func run(_ kernel: any Kernel, _ pixels: [UInt8], imageWidth: Int? = nil, left: Int = 0) throws -> [UInt8] {
    let width = pixels.count / 3
    let image = KernelImage(width: imageWidth ?? width, height: 1, bands: 3, hasAlpha: false, format: .uint8, max: 255)
    var output = [UInt8](repeating: 0, count: pixels.count)
    try pixels.withUnsafeBytes { input in
        try output.withUnsafeMutableBytes { out in
            try kernel.process(KernelRegion(left: left, top: 0, width: width, height: 1, margin: 0, input: input.baseAddress!,
                                            inputStride: pixels.count, output: out.baseAddress!, outputStride: pixels.count),
                               image: image, scratch: nil)
        }
    }
    return output
}

@Suite struct FilmLabTests {
    @Test func crossProcessLiftsBlueShadowsAndDeepensRed() throws {
        let out = try run(CrossProcess(strength: 1), [40, 40, 40])
        #expect(out[0] < 40 && out[2] > 40)
        #expect(try run(CrossProcess(strength: 0), [40, 90, 200]) == [40, 90, 200])
    }

    @Test func lightLeakIsBrightestAtItsEdge() throws {
        let leak = LightLeak(strength: 1, edge: .right, reach: 0.3)
        let row = try run(leak, [UInt8](repeating: 50, count: 30))
        #expect(row[27] > row[0])      // the last pixel glows more than the first
        #expect(row[27] > row[29])     // and red more than blue
    }
}
