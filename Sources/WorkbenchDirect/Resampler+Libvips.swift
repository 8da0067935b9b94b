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
        guard bands == 1 || bands == 3, let passes = LibvipsPasses(width: width, height: height, shrink: shrink),
              let out = malloc(max(1, passes.width * passes.height * bands)) else { return nil }
        guard passes.apply(pixels.assumingMemoryBound(to: UInt8.self), bands: bands, into: out.assumingMemoryBound(to: UInt8.self)) else {
            free(out)
            return nil
        }
        return (passes.width, passes.height, out)
    }

    /// `image` (grey or RGB) reduced with libvips' windows as `reduceAsLibvips` reduces it: the
    /// direct path's thumbnail, so that it writes what libvips' thumbnail would (their centres
    /// part from `reduce`'s by up to half an output pixel where the size was rounded); nil where
    /// libvips would box-shrink first.
    public static func reducedAsLibvips(_ image: PixelImage, shrink: (x: Double, y: Double)) -> PixelImage? {
        guard image.bands == 1 || image.bands == 3, let passes = LibvipsPasses(width: image.width, height: image.height, shrink: shrink) else { return nil }
        var made = true
        let out = [UInt8](unsafeUninitializedCapacity: passes.width * passes.height * image.bands) { target, initialized in
            image.pixels.withUnsafeBufferPointer { source in
                guard let input = source.baseAddress, let output = target.baseAddress else { return }
                made = passes.apply(input, bands: image.bands, into: output)
            }
            initialized = target.count
        }
        return made ? PixelImage(width: passes.width, height: passes.height, bands: image.bands, pixels: out) : nil
    }
}

/// The two passes of libvips' reduce for one image size and factor pair: the windows of each
/// axis it reduces (nil for an axis left alone: a factor of exactly 1, which `reduce` skips).
private struct LibvipsPasses {
    let inWidth: Int, inHeight: Int
    let rows: Resampler.Taps?, columns: Resampler.Taps?
    let width: Int, height: Int

    init?(width: Int, height: Int, shrink: (x: Double, y: Double)) {
        guard shrink.x >= 1, shrink.y >= 1, width > 0, height > 0 else { return nil }
        let x = ReduceAxis.made(input: width, shrink: shrink.x), y = ReduceAxis.made(input: height, shrink: shrink.y)
        // An axis libvips would box-shrink first (a factor of 4 or more) is left to it.
        guard x.box == 1, y.box == 1 else { return nil }
        (inWidth, inHeight) = (width, height)
        rows = shrink.y == 1 ? nil : y.fixedPoint
        columns = shrink.x == 1 ? nil : x.fixedPoint
        self.width = columns == nil ? width : x.output
        self.height = rows == nil ? height : y.output
    }

    /// Runs the passes from `input` into `target` (`width` × `height` × `bands`); false when
    /// the memory between them cannot be had.
    func apply(_ input: UnsafePointer<UInt8>, bands: Int, into target: UnsafeMutablePointer<UInt8>) -> Bool {
        switch (rows, columns) {
        case (nil, nil):
            target.update(from: input, count: width * height * bands)
        case (let rows?, nil):
            ReducePasses.rows(input, stride: inWidth * bands, into: target, height: height, taps: rows)
        case (nil, let columns?):
            ReducePasses.columns(input, width: inWidth, height: inHeight, bands: bands, into: target, width: width, taps: columns)
        case (let rows?, let columns?):
            guard let middle = malloc(max(1, inWidth * height * bands)) else { return false }
            defer { free(middle) }
            let between = middle.assumingMemoryBound(to: UInt8.self)
            ReducePasses.rows(input, stride: inWidth * bands, into: between, height: height, taps: rows)
            ReducePasses.columns(between, width: inWidth, height: height, bands: bands, into: target, width: width, taps: columns)
        }
        return true
    }
}

extension Resampler {
    /// Whether `reduceAsLibvips` takes an image of this size and these factors (no axis needs
    /// libvips' box shrink first).
    public static func reducesAsLibvips(width: Int, height: Int, shrink: (x: Double, y: Double)) -> Bool {
        LibvipsPasses(width: width, height: height, shrink: shrink) != nil
    }
}

extension ReduceAxis {
    /// The windows as the integer passes take them (`Resampler.fixedPoint`), and each window's
    /// first input before the edges are held: made once with the axis (`fixedPoint`), as a
    /// batch of small thumbnails of one size would otherwise make them again for each.
    func madeFixedPoint() -> Resampler.Taps {
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
