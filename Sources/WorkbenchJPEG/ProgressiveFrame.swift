/// The frame of a progressive JPEG (its size and components) and, per component, how libjpeg
/// would scale it at this DCT scale, the coefficients kept so far, and how far each coefficient's
/// precision has come (to tell a sound scan script from one libjpeg warns about).
struct ProgressiveFrame {
    struct Component {
        let id: UInt8
        let h: Int, v: Int
        let quantTable: Int
        /// Blocks a row in the store (the MCU grid, padding included) and rows.
        let stride: Int, rows: Int
        /// Blocks that hold image, across and down (a scan of this component alone covers these).
        let blocksWide: Int, blocksHigh: Int
        /// The size of libjpeg's inverse DCT for this component at this scale (its
        /// `DCT_scaled_size`: 8 / shrink, larger for chroma sampled coarser), 1, 2, 4 or 8.
        let scale: Int
        /// Frequencies kept a side: those an inverse DCT of `scale` points depends on (below 4
        /// only, for a low-pass decode).
        let kept: Int
        /// The component's inverse DCT.
        var shape: ScaledIDCT.Shape { ScaledIDCT.Shape(points: scale, lowPass: lowPass) }
        let lowPass: Bool
        /// The samples that are image, across and down, at this scale (libjpeg's `downsampled_width`).
        let downsampledWidth: Int, downsampledHeight: Int
        /// How the samples reach the output grid.
        let upsampling: Upsampling.Method
        /// Made at the component's first scan, once its data shows the blocks are there.
        var store: CoefficientStore?
        /// The quantisation table, latched at the component's first scan (as libjpeg does).
        var quant: [Int]?
        /// Per zigzag position, the bit its precision has reached (libjpeg's `coef_bits`): -1
        /// before any scan, then the last scan's `low`; 0 is full precision.
        var precision = [Int](repeating: -1, count: 64)

        var blocks: Int { stride * rows }
    }

    /// libjpeg's largest dimension (`JPEG_MAX_DIMENSION`).
    static let largestSide = 65500

    let width: Int, height: Int
    let shrink: Int
    let maxH: Int, maxV: Int
    let mcusWide: Int, mcusHigh: Int
    var components: [Component]
    /// Bytes of memory the whole decode takes, computed from the header before anything is made.
    let workingSet: Int

    init(_ data: UnsafeRawBufferPointer, body: Int, length: Int, shrink: Int, lowPass: Bool = false) throws(ProgressiveRefusal) {
        guard length >= 8 else { throw .damaged(.badLength, "a frame header of \(length) bytes", at: body - 2) }
        guard data[body] == 8 else {
            throw .unsupported(.precision, "\(data[body])-bit samples (this decoder reads 8-bit)", at: body)
        }
        height = Int(data[body + 1]) << 8 | Int(data[body + 2])
        width = Int(data[body + 3]) << 8 | Int(data[body + 4])
        let count = Int(data[body + 5])
        guard length == 8 + 3 * count else { throw .damaged(.badLength, "a frame header of \(length) bytes for \(count) components", at: body - 2) }
        guard width > 0, height > 0 else { throw .damaged(.emptyImage, "a frame of \(width)×\(height)", at: body) }
        guard width <= Self.largestSide, height <= Self.largestSide else {
            throw .damaged(.tooLarge, "a frame of \(width)×\(height) (libjpeg reads at most \(Self.largestSide) a side)", at: body)
        }
        guard count == 1 || count == 3 else { throw .unsupported(.components, "\(count) components (this decoder reads grey or YCbCr)", at: body) }
        var sampling: [(id: UInt8, h: Int, v: Int, q: Int)] = []
        for index in 0..<count {
            let at = body + 6 + 3 * index
            let h = Int(data[at + 1] >> 4), v = Int(data[at + 1] & 15), q = Int(data[at + 2])
            guard (1...4).contains(h), (1...4).contains(v) else { throw .damaged(.badSampling, "sampling factors \(h)×\(v)", at: at + 1) }
            guard q < 4 else { throw .damaged(.badQuantisationTable, "quantisation table \(q) (0…3)", at: at + 2) }
            sampling.append((data[at], h, v, q))
        }
        guard Set(sampling.map(\.id)).count == count else {
            throw .damaged(.duplicateComponent, "two components with the same id in the frame", at: body + 6)
        }
        // A single component is never subsampled, whatever its factors say.
        if count == 1 { sampling[0].h = 1; sampling[0].v = 1 }
        self.shrink = shrink
        maxH = sampling.map(\.h).max() ?? 1
        maxV = sampling.map(\.v).max() ?? 1
        mcusWide = (width + 8 * maxH - 1) / (8 * maxH)
        mcusHigh = (height + 8 * maxV - 1) / (8 * maxV)
        let smallest = 8 / shrink
        // libjpeg's choice (jdmaster.c): chroma sampled coarser by a power of two is scaled up
        // by its inverse DCT rather than upsampled, while the scale divides evenly.
        components = []
        var memory = 0
        for s in sampling {
            var scale = smallest
            // A low-pass decode keeps chroma at the smallest scale too and upsamples it: its
            // frequencies below 4 make no more detail at 8 points than at 4, for 4× the work.
            while !lowPass, scale < 8, (maxH * smallest) % (s.h * scale * 2) == 0, (maxV * smallest) % (s.v * scale * 2) == 0 { scale *= 2 }
            let samplesWide = (width * s.h + maxH - 1) / maxH, samplesHigh = (height * s.v + maxV - 1) / maxV
            let downsampledWidth = (width * s.h * scale + maxH * 8 - 1) / (maxH * 8)
            let downsampledHeight = (height * s.v * scale + maxV * 8 - 1) / (maxV * 8)
            guard let upsampling = Upsampling.method(inAcross: s.h * scale / smallest, inDown: s.v * scale / smallest,
                                                     outAcross: maxH, outDown: maxV, fancy: smallest > 1,
                                                     downsampledWidth: downsampledWidth) else {
                throw .damaged(.fractionalSampling, "sampling \(s.h)×\(s.v) against \(maxH)×\(maxV) (libjpeg refuses fractional sampling)", at: body)
            }
            let component = Component(id: s.id, h: s.h, v: s.v, quantTable: s.q, stride: mcusWide * s.h, rows: mcusHigh * s.v,
                                      blocksWide: (samplesWide + 7) / 8, blocksHigh: (samplesHigh + 7) / 8, scale: scale,
                                      kept: ScaledIDCT.kept(for: ScaledIDCT.Shape(points: scale, lowPass: lowPass)), lowPass: lowPass,
                                      downsampledWidth: downsampledWidth, downsampledHeight: downsampledHeight, upsampling: upsampling)
            memory += CoefficientStore.bytes(blocks: component.blocks, kept: component.kept)
                + component.blocksWide * scale * component.blocksHigh * scale
            components.append(component)
        }
        // The output and a row of each plane.
        workingSet = memory + ((width + shrink - 1) / shrink) * ((height + shrink - 1) / shrink) * count + 4 * width
    }

    /// Before a scan's data is read: latches the quantisation tables of components in their
    /// first scan (libjpeg's `latch_quant_tables`), and makes their stores, once the scan's data
    /// (`dataBytes`) is long enough to hold at least a bit for each of their blocks.
    mutating func prepare(for scan: ProgressiveScan, quantisation tables: [[Int]?], dataBytes: Int, at offset: Int,
                          makingStores: Bool = true) throws(ProgressiveRefusal) {
        let fresh = scan.members.map(\.component).filter { components[$0].quant == nil }
        guard !fresh.isEmpty else { return }
        for index in fresh {
            guard let table = tables[components[index].quantTable] else {
                throw .damaged(.undefinedQuantisationTable, "component \(components[index].id) uses quantisation table \(components[index].quantTable), which was not defined", at: offset)
            }
            components[index].quant = table
        }
        // Every block of a first DC pass takes at least one bit: fewer bytes than that cannot be
        // the data of this image, and nothing is made for it. A frame promising more rows than
        // its data holds is one libjpeg decodes with a warning, filling the rest: left to it
        // (`shortScan`). Under a sixteenth, the header is a bomb's (100 MP over 233 bytes):
        // `truncated`, which fails the decode unless it accepts damage.
        let coded = scan.members.count == 1
            ? components[scan.members[0].component].blocksWide * components[scan.members[0].component].blocksHigh
            : mcusWide * mcusHigh * scan.members.reduce(0) { $0 + components[$1.component].h * components[$1.component].v }
        guard dataBytes * 8 >= coded else {
            let reason: ProgressiveRefusal.Reason = dataBytes * 8 * 16 >= coded ? .shortScan : .truncated
            throw .damaged(reason, "scan \(scan.number) has \(dataBytes) bytes of data for \(coded) blocks", at: offset)
        }
        for index in fresh where makingStores {
            let component = components[index]
            guard let store = CoefficientStore(blocks: component.blocks, kept: component.kept) else {
                throw ProgressiveRefusal(.memory, .outOfMemory, "no memory for the coefficients of component \(component.id) (\(CoefficientStore.bytes(blocks: component.blocks, kept: component.kept)) bytes)")
            }
            components[index].store = store
        }
    }
}
