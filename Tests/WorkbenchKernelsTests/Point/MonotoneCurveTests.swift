import Testing
@testable import WorkbenchKernels

@Suite struct MonotoneCurveTests {
    @Test func passesThroughItsPointsAndNeverOvershoots() {
        let points = [(0.0, 0.1), (0.3, 0.2), (0.5, 0.8), (0.6, 0.85), (1.0, 0.9)]
        let curve = MonotoneCurve(points.map { (x: $0.0, y: $0.1) })
        for (x, y) in points { #expect(abs(curve.value(at: x) - y) < 1e-12) }
        var previous = -1.0
        for step in 0...1000 {
            let v = curve.value(at: Double(step) / 1000)
            #expect(v >= previous - 1e-12, "falls at \(step)")
            #expect(v >= 0.1 - 1e-12 && v <= 0.9 + 1e-12)
            previous = v
        }
        // Flat beyond the ends, and a straight line through points on one.
        #expect(MonotoneCurve([(x: 0.2, y: 0.3), (x: 0.8, y: 0.6)]).value(at: 0) == 0.3)
        let line = MonotoneCurve([(x: 0, y: 0), (x: 0.5, y: 0.5), (x: 1, y: 1)])
        #expect(abs(line.value(at: 0.37) - 0.37) < 1e-12)
    }
}
