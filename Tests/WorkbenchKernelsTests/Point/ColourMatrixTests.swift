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

@Suite struct ToneCurveTests {
    @Test func curvesMapBlackAndWhiteAsDeclared() {
        #expect(ToneCurves.invert().curve(0.25) == 0.75)
        let levels = ToneCurves.levels(inBlack: 51, inWhite: 204, gamma: 1, outBlack: 0, outWhite: 255)
        #expect(levels.curve(0.1) == 0 && levels.curve(0.9) == 1)
        #expect(abs(levels.curve(0.5) - 0.5) < 1e-9)
        let posterize = ToneCurves.posterize(levels: 3)
        #expect([0.1, 0.3, 0.8].map(posterize.curve) == [0, 0.5, 1])
        #expect(ToneCurves.solarize(threshold: 127.5).curve(0.8) == 1 - 0.8)
        #expect(ToneCurves.solarize(threshold: 127.5).curve(0.2) == 0.2)
    }

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
}

@Suite struct SortingNetworkTests {
    @Test func theMedianNetworksSortEveryInput() {
        for n in [9, 25] {
            let network = Median.sortingNetwork(n)
            for trial in 0..<2000 {
                var values = (0..<n).map { _ in Int.random(in: 0...(trial % 2 == 0 ? 5 : 1000)) }
                let sorted = values.sorted()
                for (a, b) in network where values[a] > values[b] { values.swapAt(a, b) }
                #expect(values == sorted)
                if values != sorted { return }
            }
        }
    }
}
