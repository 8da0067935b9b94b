import Testing
@testable import WorkbenchKernels

/// `Median` gives the middle value of the square around each sample, edges repeated, in every
/// format, on rows wider and narrower than one vector.
@Suite struct MedianTests {
    private func median<S: Comparable>(_ image: SampleImage<S>, size: Int) -> SampleImage<S> {
        let m = size / 2
        return image.map { x, y, b in
            var values: [S] = []
            for dy in -m...m { for dx in -m...m { values.append(image[x + dx, y + dy, b]) } }
            return values.sorted()[values.count / 2]
        }
    }

    @Test(arguments: [3, 5])
    func everyFormatGivesTheMiddleValue(size: Int) throws {
        // 37 × 3 samples a row: the last vector overlaps the one before it.
        let eight = SampleImage<UInt8>.noise(width: 37, height: 9, bands: 3, seed: 21)
        #expect(try eight.run(Median(size: size)) == median(eight, size: size))
        let sixteen = SampleImage<UInt16>.noise(width: 13, height: 9, bands: 2, hasAlpha: true, seed: 22)
        #expect(try sixteen.run(Median(size: size)) == median(sixteen, size: size))
        let float = SampleImage<Float>.noise(width: 11, height: 7, bands: 1, seed: 23)
        #expect(try float.run(Median(size: size)) == median(float, size: size))
    }

    @Test func regionsNarrowerThanAVectorAreSortedOneSampleAtATime() throws {
        let image = SampleImage<UInt8>.noise(width: 9, height: 8, bands: 1, seed: 24)
        // Regions 3 pixels wide: 3 samples, fewer than the 16 lanes of an 8-bit vector.
        #expect(try image.run(Median(size: 5), tile: (3, 4)) == median(image, size: 5))
    }

    @Test func aSpeckIsRemovedAndAnEdgeKept() throws {
        var samples = [UInt8](repeating: 0, count: 8 * 6)
        for y in 0..<6 { for x in 4..<8 { samples[y * 8 + x] = 200 } }
        samples[2 * 8 + 1] = 255  // one white speck on the black half
        let image = SampleImage(width: 8, height: 6, bands: 1, samples: samples)
        var expected = samples
        expected[2 * 8 + 1] = 0
        #expect(try image.run(Median(size: 3)).samples == expected)
    }

    @Test func theSortingNetworksSortEveryInput() {
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
