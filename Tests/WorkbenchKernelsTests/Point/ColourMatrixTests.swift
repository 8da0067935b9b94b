import Testing
@testable import WorkbenchKernels

@Suite struct ColourMatrixTests {
    @Test func intensityBlendsIdentityAndSepia() {
        #expect(ColourMatrix.sepia(intensity: 0) == .identity)
        #expect(ColourMatrix.sepia(intensity: 1) == .classicSepia)
        let half = ColourMatrix.sepia(intensity: 0.5)
        #expect(abs(half.rows[0][0] - (0.5 + 0.5 * 0.393)) < 1e-12)
        #expect(abs(half.rows[2][0] - 0.5 * 0.272) < 1e-12)
        #expect(ColourMatrix.sepia(intensity: 7) == .classicSepia)
    }

    @Test func greyTurnsBrownish() {
        let (r, g, b) = ColourMatrix.classicSepia.apply(r: 128, g: 128, b: 128)
        #expect(r > g && g > b)
        #expect((r, g, b) == (173, 154, 120))
        #expect(ColourMatrix.classicSepia.apply(r: 255, g: 255, b: 255) == (255, 255, 239))
    }
}
