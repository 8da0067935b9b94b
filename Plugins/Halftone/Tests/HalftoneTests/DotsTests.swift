import Testing
import WorkbenchKit
@testable import Halftone

@Suite struct DotsTests {
    /// A grey image `side` pixels square of one value, through the kernel as one region.
    func dots(_ value: UInt8, side: Int, size: Int) throws -> [UInt8] {
        let margin = size, stride = side + 2 * margin
        let input = [UInt8](repeating: value, count: stride * stride)
        var output = [UInt8](repeating: 0, count: side * side)
        let image = KernelImage(width: side, height: side, bands: 1, hasAlpha: false, format: .uint8, max: 255)
        try input.withUnsafeBytes { source in
            try output.withUnsafeMutableBytes { target in
                try Dots(size: size, colour: true).process(
                    KernelRegion(left: 0, top: 0, width: side, height: side, margin: margin, input: source.baseAddress!,
                                 inputStride: stride, output: target.baseAddress!, outputStride: side),
                    image: image, scratch: nil)
            }
        }
        return output
    }

    @Test func inkCoversAsMuchAsTheGreyIsDark() throws {
        for value: UInt8 in [0, 64, 128, 192, 255] {
            let out = try dots(value, side: 40, size: 10)
            let mean = Double(out.reduce(0) { $0 + Int($1) }) / Double(out.count)
            #expect(abs(mean - Double(value)) < 12, "grey \(value) gave \(mean)")
        }
    }

    @Test func aMidGreyCellHasADarkCentreAndLightCorners() throws {
        let out = try dots(128, side: 10, size: 10)
        #expect(out[5 * 10 + 5] < 30)
        #expect(out[0] == 255)
    }
}
