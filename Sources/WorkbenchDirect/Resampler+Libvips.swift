import Foundation

extension Resampler {
    /// An opaque 8-bit image (grey or RGB) reduced with the windows libvips 8.14's `reducev` then
    /// `reduceh` use under `thumbnail_image` (`ReduceAxis`: the same output size, centres and
    /// window widths), their weights in 1/4096ths and each pass rounded to 8 bits, as libvips'
    /// integer path does; the passes are ours (`CResample`, AVX2 where the processor has it),
    /// where libvips' horizontal pass is scalar. A malloc'd buffer of width × height × bands,
    /// nil when an axis would need libvips' box shrink first (a factor of 4 or more) or the
    /// memory cannot be had.
    public static func reduceAsLibvips(_ pixels: UnsafeRawPointer, width: Int, height: Int, bands: Int,
                                       shrink: (x: Double, y: Double)) -> (width: Int, height: Int, pixels: UnsafeMutableRawPointer)? {
        guard bands == 1 || bands == 3, reducesAsLibvips(width: width, height: height, shrink: shrink) else { return nil }
        let x = ReduceAxis.made(input: width, shrink: shrink.x), y = ReduceAxis.made(input: height, shrink: shrink.y)
        let input = pixels.assumingMemoryBound(to: UInt8.self)
        // A factor of exactly 1 leaves that axis alone, as `reduce` skips it.
        let rows = shrink.y == 1 ? nil : y.fixedPoint
        let columns = shrink.x == 1 ? nil : x.fixedPoint
        let outWidth = columns == nil ? width : x.output, outHeight = rows == nil ? height : y.output
        guard let out = malloc(max(1, outWidth * outHeight * bands)) else { return nil }
        let target = out.assumingMemoryBound(to: UInt8.self)
        switch (rows, columns) {
        case (nil, nil):
            memcpy(out, pixels, width * height * bands)
        case (let rows?, nil):
            ReducePasses.rows(input, stride: width * bands, into: target, height: outHeight, taps: rows)
        case (nil, let columns?):
            ReducePasses.columns(input, width: width, height: height, bands: bands, into: target, width: outWidth, taps: columns)
        case (let rows?, let columns?):
            guard let middle = malloc(max(1, width * outHeight * bands)) else {
                free(out)
                return nil
            }
            defer { free(middle) }
            let between = middle.assumingMemoryBound(to: UInt8.self)
            ReducePasses.rows(input, stride: width * bands, into: between, height: outHeight, taps: rows)
            ReducePasses.columns(between, width: width, height: outHeight, bands: bands, into: target, width: outWidth, taps: columns)
        }
        return (outWidth, outHeight, out)
    }
}

extension Resampler {
    /// Whether `reduceAsLibvips` takes an image of this size and these factors (no axis needs
    /// libvips' box shrink first).
    public static func reducesAsLibvips(width: Int, height: Int, shrink: (x: Double, y: Double)) -> Bool {
        guard shrink.x >= 1, shrink.y >= 1, width > 0, height > 0 else { return false }
        return ReduceAxis.made(input: width, shrink: shrink.x).box == 1 && ReduceAxis.made(input: height, shrink: shrink.y).box == 1
    }
}

extension ReduceAxis {
    /// The windows as the integer passes take them (`Resampler.fixedPoint`), and each window's
    /// first input before the edges are held.
    var fixedPoint: Resampler.Taps {
        var taps = Resampler.Taps()
        taps.count = count
        for o in 0..<output {
            taps.first.append(firsts[o])
            taps.inputs.append(contentsOf: inputs[(o * count)..<((o + 1) * count)])
            taps.weights.append(contentsOf: Resampler.fixedPoint(weights[(o * count)..<((o + 1) * count)]))
        }
        return taps
    }
}
