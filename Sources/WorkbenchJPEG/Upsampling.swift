/// A component's samples brought onto the output grid the way libjpeg-turbo's upsampler does it
/// (`jdsample.c`): the same choice of method for the same sampling and scale, and the same
/// integer arithmetic, so a plane comes out as libjpeg's does.
struct Upsampling {
    enum Method: Equatable {
        /// Already on the output grid.
        case fullSize
        /// Twice as coarse across: triangle filter, weights ¾ and ¼ (`h2v1_fancy_upsample`).
        case fancyAcross
        /// Twice as coarse down (`h1v2_fancy_upsample`).
        case fancyDown
        /// Twice as coarse both ways (`h2v2_fancy_upsample`).
        case fancyBoth
        /// Each sample repeated `x` times across and `y` times down (`int_upsample`, `h2v1_upsample`…).
        case replicate(x: Int, y: Int)
    }

    /// libjpeg's choice for a component whose samples come `inAcross`×`inDown` to every
    /// `outAcross`×`outDown` output pixels (`h_in_group` and friends); nil where libjpeg refuses
    /// the sampling as fractional (`JERR_FRACT_SAMPLE_NOTIMPL`).
    static func method(inAcross: Int, inDown: Int, outAcross: Int, outDown: Int, fancy: Bool, downsampledWidth: Int) -> Method? {
        if inAcross == outAcross && inDown == outDown { return .fullSize }
        if inAcross * 2 == outAcross && inDown == outDown {
            return fancy && downsampledWidth > 2 ? .fancyAcross : .replicate(x: 2, y: 1)
        }
        if inAcross == outAcross && inDown * 2 == outDown && fancy { return .fancyDown }
        if inAcross * 2 == outAcross && inDown * 2 == outDown {
            return fancy && downsampledWidth > 2 ? .fancyBoth : .replicate(x: 2, y: 2)
        }
        if outAcross % inAcross == 0 && outDown % inDown == 0 { return .replicate(x: outAcross / inAcross, y: outDown / inDown) }
        return nil
    }

    let method: Method
    /// The samples, `wide` a row and `high` rows (whole blocks); of these, `downsampledWidth` ×
    /// `downsampledHeight` are image, the rest the blocks' padding.
    let samples: UnsafePointer<UInt8>
    let wide: Int, high: Int
    let downsampledWidth: Int, downsampledHeight: Int
    /// Rows below the image read as its last row, as in libjpeg when any component of the frame
    /// is filtered down (its main controller then pads every component that way).
    let padsBottom: Bool

    /// Output row `y`, columns 0..<`width`, into `row`.
    func row(_ y: Int, width: Int, into row: UnsafeMutablePointer<UInt8>) {
        switch method {
        case .fullSize:
            let source = samples + sourceRow(y) * wide
            row.update(from: source, count: min(width, wide))
        case .replicate(let rx, let ry):
            let source = samples + sourceRow(y / ry) * wide
            for x in 0..<width { row[x] = source[min(x / rx, wide - 1)] }
        case .fancyAcross:
            across(samples + sourceRow(y) * wide, width: width, into: row)
        case .fancyDown:
            let (near, far, bias) = verticalPair(y)
            for x in 0..<width { row[x] = UInt8(truncatingIfNeeded: (3 * Int(near[x]) + Int(far[x]) + bias) >> 2) }
        case .fancyBoth:
            let (near, far, _) = verticalPair(y)
            let last = downsampledWidth - 1
            @inline(__always) func sum(_ c: Int) -> Int { 3 * Int(near[c]) + Int(far[c]) }
            for x in 0..<width {
                let c = min(x >> 1, last)
                let value: Int
                if x & 1 == 0 {
                    value = c == 0 ? (sum(0) * 4 + 8) >> 4 : (sum(c) * 3 + sum(c - 1) + 8) >> 4
                } else {
                    value = c >= last ? (sum(last) * 4 + 7) >> 4 : (sum(c) * 3 + sum(c + 1) + 7) >> 4
                }
                row[x] = UInt8(truncatingIfNeeded: value)
            }
        }
    }

    /// A sample row, those below the image read as its last when libjpeg pads them so.
    private func sourceRow(_ y: Int) -> Int {
        min(padsBottom ? min(y, downsampledHeight - 1) : y, high - 1)
    }

    /// The nearest input row to output row `y` and the next nearest (above for the upper output
    /// row of a pair, below for the lower; the image's edge rows stand in past its edges), with
    /// libjpeg's rounding bias for `fancyDown`.
    private func verticalPair(_ y: Int) -> (UnsafePointer<UInt8>, UnsafePointer<UInt8>, Int) {
        let nearest = min(y >> 1, downsampledHeight - 1)
        let upper = y & 1 == 0
        let next = upper ? max(nearest - 1, 0) : min(nearest + 1, downsampledHeight - 1)
        return (samples + min(nearest, high - 1) * wide, samples + min(next, high - 1) * wide, upper ? 1 : 2)
    }

    private func across(_ source: UnsafePointer<UInt8>, width: Int, into row: UnsafeMutablePointer<UInt8>) {
        let last = downsampledWidth - 1
        // Pairs of output samples around input sample c, away from both edges, without a
        // branch; the edges as libjpeg treats them.
        let inner = min(last, width >> 1)
        if inner > 1 {
            for c in 1..<inner {
                let near = 3 &* Int(source[c])
                row[2 &* c] = UInt8(truncatingIfNeeded: (near &+ Int(source[c &- 1]) &+ 1) &>> 2)
                row[2 &* c &+ 1] = UInt8(truncatingIfNeeded: (near &+ Int(source[c &+ 1]) &+ 2) &>> 2)
            }
        }
        let edges = (0..<min(2, width), 2 * max(inner, 1)..<max(width, 2 * max(inner, 1)))
        for x in Array(edges.0) + Array(edges.1) {
            let c = min(x >> 1, last)
            let value: Int
            if x & 1 == 0 {
                value = c == 0 ? Int(source[0]) : (3 * Int(source[c]) + Int(source[c - 1]) + 1) >> 2
            } else {
                value = c >= last ? Int(source[last]) : (3 * Int(source[c]) + Int(source[c + 1]) + 2) >> 2
            }
            row[x] = UInt8(truncatingIfNeeded: value)
        }
    }
}
