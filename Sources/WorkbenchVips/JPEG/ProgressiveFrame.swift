/// The frame of a progressive JPEG (its size and components) and, per component, the
/// coefficients kept so far: each block's lowest `kept`×`kept` frequencies, dequantised later,
/// and a bit per coefficient saying whether it is nonzero yet.
struct ProgressiveFrame {
    struct Component {
        let id: UInt8
        let h: Int, v: Int
        let quantTable: Int
        /// Blocks a row in the arrays (the MCU grid, padding included) and rows.
        let stride: Int, rows: Int
        /// Blocks that hold image, across and down (a scan of this component alone covers these).
        let blocksWide: Int, blocksHigh: Int
        /// Frequencies kept a side: 8 / shrink, times how much coarser than luma the component is
        /// sampled when that is the same across and down (then it needs no interpolating), at most 8.
        let kept: Int
        let store: CoefficientStore
        /// The quantisation table, latched at the component's first scan (as libjpeg does).
        var quant: [Int]?
    }

    let width: Int, height: Int
    let shrink: Int
    let maxH: Int, maxV: Int
    let mcusWide: Int, mcusHigh: Int
    var components: [Component]

    init?(_ data: UnsafeRawBufferPointer, body: Int, length: Int, shrink: Int) {
        guard length >= 8, data[body] == 8 else { return nil }
        width = Int(data[body + 3]) << 8 | Int(data[body + 4])
        height = Int(data[body + 1]) << 8 | Int(data[body + 2])
        let count = Int(data[body + 5])
        guard width > 0, height > 0, count == 1 || count == 3, length == 8 + 3 * count else { return nil }
        var sampling: [(id: UInt8, h: Int, v: Int, q: Int)] = []
        for index in 0..<count {
            let at = body + 6 + 3 * index
            let h = Int(data[at + 1] >> 4), v = Int(data[at + 1] & 15), q = Int(data[at + 2])
            guard (1...4).contains(h), (1...4).contains(v), q < 4 else { return nil }
            sampling.append((data[at], h, v, q))
        }
        // JFIF reads three components as YCbCr unless they are named R, G, B.
        if count == 3, sampling.map(\.id) == [0x52, 0x47, 0x42] { return nil }
        // A single component is never subsampled, whatever its factors say.
        if count == 1 { sampling[0].h = 1; sampling[0].v = 1 }
        self.shrink = shrink
        maxH = sampling.map(\.h).max() ?? 1
        maxV = sampling.map(\.v).max() ?? 1
        mcusWide = (width + 8 * maxH - 1) / (8 * maxH)
        mcusHigh = (height + 8 * maxV - 1) / (8 * maxV)
        components = []
        for s in sampling {
            // Chroma must divide the luma grid evenly to be brought onto it.
            guard maxH % s.h == 0, maxV % s.v == 0 else { return nil }
            let samplesWide = (width * s.h + maxH - 1) / maxH, samplesHigh = (height * s.v + maxV - 1) / maxV
            let coarser = maxH / s.h == maxV / s.v ? maxH / s.h : 1
            // At 1/8 the AC scans are not read: one coefficient whatever the sampling.
            let kept = shrink == 8 ? 1 : min(8, 8 / shrink * coarser)
            let blocks = mcusWide * s.h * mcusHigh * s.v
            components.append(Component(id: s.id, h: s.h, v: s.v, quantTable: s.q, stride: mcusWide * s.h, rows: mcusHigh * s.v,
                                        blocksWide: (samplesWide + 7) / 8, blocksHigh: (samplesHigh + 7) / 8, kept: kept,
                                        store: CoefficientStore(blocks: blocks, kept: kept, tracksNonzero: shrink < 8), quant: nil))
        }
    }

    /// Takes the quantisation tables of the scan's components that have not been in a scan yet;
    /// false when one is missing or a component's first scan is not its first DC pass.
    mutating func latchQuantisation(for scan: ProgressiveScan, tables: [[Int]?]) -> Bool {
        for member in scan.members where components[member.component].quant == nil {
            guard scan.start == 0, scan.high == 0, let table = tables[components[member.component].quantTable] else { return false }
            components[member.component].quant = table
        }
        return true
    }

    /// The kept coefficients through an inverse DCT of their size, each component brought to the
    /// output grid, YCbCr to RGB; only the top left `size` when given (libvips keeps floor(size
    /// / shrink) of libjpeg's ceil). Each component's coefficients are given back as soon as its
    /// samples are made, so a large photo never holds both at once.
    func render(keeping size: (width: Int, height: Int)? = nil) -> ProgressiveJPEG? {
        let outWidth = (width + shrink - 1) / shrink, outHeight = (height + shrink - 1) / shrink
        let keptWidth = min(size?.width ?? outWidth, outWidth), keptHeight = min(size?.height ?? outHeight, outHeight)
        let bands = components.count == 3 ? 3 : 1
        guard keptWidth > 0, keptHeight > 0, let pixels = PixelBuffer(count: keptWidth * keptHeight * bands) else { return nil }
        // Every plane is `outWidth` samples a row.
        var planes: [[UInt8]] = []
        for component in components {
            let (samples, samplesWide, samplesHigh) = ScaledIDCT.samples(of: component)
            component.store.release()
            // How many output pixels a sample spans, across and down.
            let fx = maxH / component.h * 8 / shrink / component.kept, fy = maxV / component.v * 8 / shrink / component.kept
            if fx == 1 && fy == 1 && samplesWide == outWidth && samplesHigh >= outHeight {
                planes.append(samples)
            } else {
                planes.append(ScaledIDCT.resample(samples, wide: samplesWide, high: samplesHigh, by: (max(1, fx), max(1, fy)),
                                                  to: (outWidth, outHeight)))
            }
        }
        let out = pixels.bytes
        if bands == 1 {
            planes[0].withUnsafeBufferPointer { plane in
                for y in 0..<keptHeight {
                    for x in 0..<keptWidth { out[y * keptWidth + x] = plane[y * outWidth + x] }
                }
            }
            return ProgressiveJPEG(width: keptWidth, height: keptHeight, bands: 1, buffer: pixels)
        }
        planes[0].withUnsafeBufferPointer { lumaPlane in
        planes[1].withUnsafeBufferPointer { cbPlane in
        planes[2].withUnsafeBufferPointer { crPlane in
            for y in 0..<keptHeight {
                var at = y * keptWidth * 3
                for index in (y * outWidth)..<(y * outWidth + keptWidth) {
                    // JFIF's YCbCr → RGB, in 1/65536ths.
                    let luma = Int(lumaPlane[index]) << 16 + 32768, cb = Int(cbPlane[index]) - 128, cr = Int(crPlane[index]) - 128
                    out[at] = UInt8(clamping: (luma + 91881 * cr) >> 16)
                    out[at + 1] = UInt8(clamping: (luma - 22554 * cb - 46802 * cr) >> 16)
                    out[at + 2] = UInt8(clamping: (luma + 116130 * cb) >> 16)
                    at += 3
                }
            }
        }
        }
        }
        return ProgressiveJPEG(width: keptWidth, height: keptHeight, bands: 3, buffer: pixels)
    }
}

/// A component's kept coefficients, `kept`×`kept` a block, block after block (row-major within
/// the block), and which of each block's 64 coefficients are nonzero so far (bit k for zigzag
/// position k). Memory of its own, written in place by the scans: no copy-on-write in the way.
final class CoefficientStore {
    private(set) var values: UnsafeMutableBufferPointer<Int16>
    private(set) var nonzero: UnsafeMutableBufferPointer<UInt64>

    init(blocks: Int, kept: Int, tracksNonzero: Bool) {
        values = .allocate(capacity: blocks * kept * kept)
        values.initialize(repeating: 0)
        nonzero = .allocate(capacity: tracksNonzero ? blocks : 0)
        nonzero.initialize(repeating: 0)
    }

    /// Gives the memory back now (the store is empty afterwards).
    func release() {
        values.deallocate()
        nonzero.deallocate()
        values = .allocate(capacity: 0)
        nonzero = .allocate(capacity: 0)
    }

    deinit {
        values.deallocate()
        nonzero.deallocate()
    }
}
