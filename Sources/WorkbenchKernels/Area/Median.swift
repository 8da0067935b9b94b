/// The median of the `size`×`size` square around each pixel (3 or 5), every band: removes
/// specks and salt-and-pepper noise while keeping edges.
///
/// Many samples at once: the window's values for 16 (8-bit), 8 (16-bit) or 4 (float) neighbouring
/// samples are vectors, sorted by a fixed network of min/max steps (Batcher's odd–even merge
/// sort), so there are no branches and every step serves a whole vector.
public struct Median: Kernel {
    public let size: Int
    private let network: [(Int, Int)]

    public init(size: Int) {
        self.size = size
        network = Self.sortingNetwork(size * size)
    }

    public var name: String { "median" }
    public var margin: Int { size / 2 }

    public func process(_ region: KernelRegion, image: KernelImage, scratch: AnyObject?) throws(KernelError) {
        switch image.format {
        case .uint8: run(region, image, SIMD16<UInt8>.self)
        case .uint16: run(region, image, SIMD8<UInt16>.self)
        case .float: run(region, image, SIMD4<Float>.self)
        }
    }

    private func run<V: SIMD>(_ region: KernelRegion, _ image: KernelImage, _: V.Type) where V.Scalar: Comparable {
        let bands = image.bands, m = margin, count = region.width * bands, lanes = V.scalarCount
        let n = size * size, middle = n / 2
        withUnsafeTemporaryAllocation(of: V.self, capacity: n) { window in
            // Where each of the window's values sits, relative to an output sample: a row and a shift.
            var offsets: [(dy: Int, shift: Int)] = []
            for dy in -m...m { for dx in 0...(2 * m) { offsets.append((dy, dx * bands)) } }
            for y in 0..<region.height {
                let rows = offsets.map { UnsafeRawPointer(region.inputRow(y + $0.dy, as: V.Scalar.self) + $0.shift) }
                let output = UnsafeMutableRawPointer(region.outputRow(y, as: V.Scalar.self))
                let stride = MemoryLayout<V.Scalar>.stride
                // The last vector overlaps the one before it rather than reading past the row.
                var start = 0
                while start < count {
                    let i = count >= lanes ? min(start, count - lanes) : 0
                    if count < lanes {
                        scalarRow(V.Scalar.self, count: count, rows: rows, output: output)
                        break
                    }
                    for k in 0..<n { window[k] = rows[k].loadUnaligned(fromByteOffset: i * stride, as: V.self) }
                    for (a, b) in network {
                        let low = pointwiseMin(window[a], window[b]), high = pointwiseMax(window[a], window[b])
                        window[a] = low
                        window[b] = high
                    }
                    output.storeBytes(of: window[middle], toByteOffset: i * stride, as: V.self)
                    start += lanes
                }
            }
        }
    }

    /// Rows narrower than one vector (a region a few pixels wide), one sample at a time.
    private func scalarRow<S: Comparable>(_: S.Type, count: Int, rows: [UnsafeRawPointer], output: UnsafeMutableRawPointer) {
        let stride = MemoryLayout<S>.stride
        var values: [S] = []
        values.reserveCapacity(rows.count)
        for i in 0..<count {
            values.removeAll(keepingCapacity: true)
            for row in rows { values.append(row.loadUnaligned(fromByteOffset: i * stride, as: S.self)) }
            values.sort()
            output.storeBytes(of: values[values.count / 2], toByteOffset: i * stride, as: S.self)
        }
    }

    /// Comparator pairs of Batcher's odd–even merge sort for `n` values, with the pairs that
    /// touch indices past `n` left out (those lanes would hold +∞ and never move).
    static func sortingNetwork(_ n: Int) -> [(Int, Int)] {
        var size = 1
        while size < n { size *= 2 }
        var pairs: [(Int, Int)] = []
        var p = 1
        while p < size {
            var k = p
            while k >= 1 {
                var j = k % p
                while j + k < size {
                    for i in 0..<min(k, size - j - k) where (i + j) / (2 * p) == (i + j + k) / (2 * p) {
                        let a = i + j, b = i + j + k
                        if b < n { pairs.append((a, b)) }
                    }
                    j += 2 * k
                }
                k /= 2
            }
            p *= 2
        }
        return pairs
    }
}
