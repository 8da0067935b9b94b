import Testing
import WorkbenchKernels

@Suite struct ColorMatrixTests {
    @Test func intensityBlendsIdentityAndSepia() {
        #expect(ColorMatrix.sepia(intensity: 0) == .identity)
        #expect(ColorMatrix.sepia(intensity: 1) == .classicSepia)
        let half = ColorMatrix.sepia(intensity: 0.5)
        #expect(abs(half.rows[0][0] - (0.5 + 0.5 * 0.393)) < 1e-12)
        #expect(abs(half.rows[2][0] - 0.5 * 0.272) < 1e-12)
        #expect(ColorMatrix.sepia(intensity: 7) == .classicSepia)
    }

    @Test func greyTurnsBrownish() {
        let (r, g, b) = ColorMatrix.classicSepia.apply(r: 128, g: 128, b: 128)
        #expect(r > g && g > b)
        #expect((r, g, b) == (173, 154, 120))
        #expect(ColorMatrix.classicSepia.apply(r: 255, g: 255, b: 255) == (255, 255, 239))
    }
}
