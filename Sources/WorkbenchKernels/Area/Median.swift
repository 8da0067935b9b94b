/// The median of the `size`×`size` square around each pixel (3 or 5), every band: removes
/// specks and salt-and-pepper noise while keeping edges.
public struct Median: Kernel {
    public let size: Int
    public init(size: Int) { self.size = size }
    public var name: String { "median" }
    public var margin: Int { size / 2 }

    public func process(_ region: KernelRegion, image: KernelImage, scratch: AnyObject?) throws(KernelError) {
        switch image.format {
        case .uint8: run(region, image, UInt8.self)
        case .uint16: run(region, image, UInt16.self)
        case .float: run(region, image, Float.self)
        }
    }

    private func run<S: KernelSample & Comparable>(_ region: KernelRegion, _ image: KernelImage, _: S.Type) {
        let bands = image.bands, m = margin, count = size * size
        withUnsafeTemporaryAllocation(of: S.self, capacity: count) { window in
            for y in 0..<region.height {
                let output = region.outputRow(y, as: S.self)
                for x in 0..<region.width {
                    for b in 0..<bands {
                        var n = 0
                        for dy in -m...m {
                            let row = region.inputRow(y + dy, as: S.self)
                            for dx in 0...(2 * m) {
                                window[n] = row[(x + dx) * bands + b]
                                n += 1
                            }
                        }
                        output[x * bands + b] = count == 9 ? Self.median9(window) : Self.select(window, count: count, rank: count / 2)
                    }
                }
            }
        }
    }

    /// The median of nine values by a fixed network of 19 exchanges (no branches to mispredict).
    @inline(__always)
    static func median9<S: Comparable>(_ p: UnsafeMutableBufferPointer<S>) -> S {
        @inline(__always) func sort(_ a: Int, _ b: Int) {
            let low = min(p[a], p[b]), high = max(p[a], p[b])
            p[a] = low
            p[b] = high
        }
        sort(1, 2); sort(4, 5); sort(7, 8); sort(0, 1); sort(3, 4); sort(6, 7)
        sort(1, 2); sort(4, 5); sort(7, 8); sort(0, 3); sort(5, 8); sort(4, 7)
        sort(3, 6); sort(1, 4); sort(2, 5); sort(4, 7); sort(4, 2); sort(6, 4)
        sort(4, 2)
        return p[4]
    }

    /// The value of rank `k` (0-based) among the first `count` of `p`, by quickselect (which
    /// reorders them).
    static func select<S: Comparable>(_ p: UnsafeMutableBufferPointer<S>, count: Int, rank k: Int) -> S {
        var low = 0, high = count - 1
        while low < high {
            let pivot = p[(low + high) / 2]
            var i = low, j = high
            while i <= j {
                while p[i] < pivot { i += 1 }
                while pivot < p[j] { j -= 1 }
                if i <= j {
                    p.swapAt(i, j)
                    i += 1
                    j -= 1
                }
            }
            if k <= j { high = j } else if k >= i { low = i } else { break }
        }
        return p[k]
    }
}
