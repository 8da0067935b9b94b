import WorkbenchKernels

/// An image in memory that kernels run on as the host runs them: the input grown by the
/// kernel's margin with edge pixels repeated (libvips' `extend copy`), cut into regions of a
/// chosen size. Tests compare a kernel's output with a plain loop written from the kernel's
/// definition, so the reference shares no code with the kernel.
struct SampleImage<Sample: KernelSample & Equatable>: Equatable {
    let width: Int
    let height: Int
    let bands: Int
    let hasAlpha: Bool
    var samples: [Sample]

    var colourBands: Int { hasAlpha ? bands - 1 : bands }
    var max: Float { switch Sample.format { case .uint8: 255; case .uint16: 65535; case .float: 1 } }

    init(width: Int, height: Int, bands: Int, hasAlpha: Bool = false, samples: [Sample]) {
        precondition(samples.count == width * height * bands)
        (self.width, self.height, self.bands, self.hasAlpha, self.samples) = (width, height, bands, hasAlpha, samples)
    }

    /// Samples from a fixed generator over the format's range, so every run sees the same image.
    static func noise(width: Int, height: Int, bands: Int, hasAlpha: Bool = false, seed: UInt64) -> SampleImage {
        var state = seed
        let range: Float = Sample.format == .float ? 1 : (Sample.format == .uint8 ? 255 : 65535)
        let samples = (0..<(width * height * bands)).map { _ -> Sample in
            state = state &* 6364136223846793005 &+ 1442695040888963407
            let unit = Float(state >> 40) / Float(1 << 24)
            return Sample(clamping: unit * range)
        }
        return SampleImage(width: width, height: height, bands: bands, hasAlpha: hasAlpha, samples: samples)
    }

    /// Sample `band` of pixel (`x`, `y`); coordinates outside repeat the nearest edge pixel.
    subscript(x: Int, y: Int, band: Int) -> Sample {
        let cx = Swift.min(Swift.max(x, 0), width - 1), cy = Swift.min(Swift.max(y, 0), height - 1)
        return samples[(cy * width + cx) * bands + band]
    }

    /// The image made by `value(x, y, band)` for every output sample of `bands` per pixel.
    func map(bands outBands: Int? = nil, _ value: (Int, Int, Int) -> Sample) -> SampleImage {
        let outBands = outBands ?? bands
        var samples: [Sample] = []
        samples.reserveCapacity(width * height * outBands)
        for y in 0..<height { for x in 0..<width { for b in 0..<outBands { samples.append(value(x, y, b)) } } }
        return SampleImage(width: width, height: height, bands: outBands, hasAlpha: hasAlpha, samples: samples)
    }

    /// `kernel` run over the image in regions of `tile` (the whole image when nil), each region
    /// reading its own copy of the input it needs, as a libvips region would hand it over.
    func run(_ kernel: any Kernel, outBands: Int? = nil, tile: (width: Int, height: Int)? = nil) throws -> SampleImage {
        let outBands = outBands ?? bands
        let image = KernelImage(width: width, height: height, bands: bands, hasAlpha: hasAlpha, format: Sample.format, max: max)
        let scratch = try kernel.makeScratch(for: image)
        let margin = kernel.margin
        let (tileWidth, tileHeight) = tile ?? (width, height)
        var output = [Sample](repeating: Sample(clamping: 0), count: width * height * outBands)
        for top in stride(from: 0, to: height, by: tileHeight) {
            for left in stride(from: 0, to: width, by: tileWidth) {
                let w = Swift.min(tileWidth, width - left), h = Swift.min(tileHeight, height - top)
                var input: [Sample] = []
                for y in (top - margin)..<(top + h + margin) {
                    for x in (left - margin)..<(left + w + margin) { for b in 0..<bands { input.append(self[x, y, b]) } }
                }
                var region = [Sample](repeating: Sample(clamping: 0), count: w * h * outBands)
                let stride = MemoryLayout<Sample>.stride
                try input.withUnsafeBytes { source in
                    try region.withUnsafeMutableBytes { target in
                        guard let from = source.baseAddress, let to = target.baseAddress else { return }
                        let area = KernelRegion(left: left, top: top, width: w, height: h, margin: margin,
                                                input: from, inputStride: (w + 2 * margin) * bands * stride,
                                                output: to, outputStride: w * outBands * stride)
                        try kernel.process(area, image: image, scratch: scratch)
                    }
                }
                for y in 0..<h {
                    for i in 0..<(w * outBands) { output[((top + y) * width + left) * outBands + i] = region[y * w * outBands + i] }
                }
            }
        }
        return SampleImage(width: width, height: height, bands: outBands, hasAlpha: hasAlpha, samples: output)
    }

    /// The largest difference between two images' samples.
    func largestDifference(_ other: SampleImage) -> Float {
        zip(samples, other.samples).map { abs($0.floatValue - $1.floatValue) }.max() ?? 0
    }
}
