import CVips
import CVipsGuard
import WorkbenchKernels

/// Which engine runs a colour matrix: a Swift kernel streaming inside libvips, or libvips' `recomb`.
public enum ColourEngine: String, CaseIterable, Sendable {
    case swift, vips
}

/// The operations the built-in stages use, each a thin typed call into libvips.
extension VipsImage {
    func colourspace(_ space: VipsInterpretation) throws(VipsError) -> VipsImage {
        try derive("colourspace") { cvips_colourspace(pointer, $0, space) }
    }

    func cast(_ format: VipsBandFormat) throws(VipsError) -> VipsImage {
        try derive("cast") { cvips_cast(pointer, $0, format) }
    }

    func extractBands(from band: Int, count: Int) throws(VipsError) -> VipsImage {
        try derive("extract_band") { cvips_extract_band(pointer, $0, Int32(band), Int32(count)) }
    }

    func joined(with other: VipsImage) throws(VipsError) -> VipsImage {
        try derive("bandjoin") { cvips_bandjoin2(pointer, other.pointer, $0) }
    }

    /// Multiplies every pixel's first three bands by `matrix`; the result is float.
    func recomb(_ matrix: ColorMatrix) throws(VipsError) -> VipsImage {
        let coefficients = matrix.flattened
        let (made, message) = VipsErrorLog.call({
            coefficients.withUnsafeBufferPointer { vips_image_new_matrix_from_array(3, 3, $0.baseAddress, Int32($0.count)) }
        }, failed: { $0 == nil })
        guard let matrixImage = made else {
            throw .operationFailed(operation: "recomb", message: message ?? "libvips gave no message")
        }
        let m = VipsImage(owning: matrixImage)
        return try derive("recomb") { cvips_recomb(pointer, $0, m.pointer) }
    }

    /// Applies a colour matrix to the colour bands: grey becomes sRGB first, alpha is kept, and
    /// the result has the input's band format. The Swift engine runs a fixed-point kernel as a
    /// libvips pipeline node (8-bit images; others use libvips); the libvips engine `recomb`,
    /// which works in floating point. They differ by at most 1 per sample.
    func applyingColourMatrix(_ matrix: ColorMatrix, engine: ColourEngine = .swift) throws(VipsError) -> VipsImage {
        var image = self
        if engine == .swift && image.format == VIPS_FORMAT_UCHAR {
            if image.bands < 3 { image = try image.colourspace(VIPS_INTERPRETATION_sRGB) }
            return try image.applyingPixelKernel(matrix)
        }
        let format = image.format
        // recomb needs exactly three colour bands: grey becomes sRGB, alpha is set aside.
        if image.bands < 3 { image = try image.colourspace(VIPS_INTERPRETATION_sRGB) }
        var alpha: VipsImage?
        if image.bands > 3 {
            alpha = try image.extractBands(from: 3, count: image.bands - 3)
            image = try image.extractBands(from: 0, count: 3)
        }
        var toned = try image.recomb(matrix).cast(format)
        if let alpha { toned = try toned.joined(with: alpha) }
        return toned
    }

    /// The colour matrix as a Swift kernel inside libvips' pipeline (see `cvips_kernel_image`).
    private func applyingPixelKernel(_ matrix: ColorMatrix) throws(VipsError) -> VipsImage {
        let coefficients = UnsafeMutablePointer<Int32>.allocate(capacity: 9)
        coefficients.initialize(from: matrix.fixedPoint, count: 9)
        let kernel: cvips_pixel_kernel = { input, output, pixels, bands, context in
            guard let input, let output, let context else { return }
            ColorMatrix.applyRows(input, output, pixels: Int(pixels), bands: Int(bands),
                                  coefficients: context.assumingMemoryBound(to: Int32.self))
        }
        // Called by libvips when the output image closes: the kernel's context goes with it.
        let release: cvips_context_release = { context in UnsafeMutableRawPointer(mutating: context)?.deallocate() }
        try checkSane(for: "colour matrix kernel")
        var aborted: Int32 = 0
        let (made, message) = VipsErrorLog.call({ cvips_guarded_kernel_image(pointer, kernel, coefficients, release, &aborted) },
                                                failed: { $0 == nil })
        guard let made else {
            // After an abort the half-made image may still point at the coefficients: leak them.
            if aborted == 0 { coefficients.deallocate() }
            throw aborted != 0 ? VipsError.aborted(operation: "colour matrix kernel")
                : .operationFailed(operation: "colour matrix kernel", message: message ?? "libvips gave no message")
        }
        return VipsImage(owning: made, origin: origin)
    }

    /// The image evaluated into memory, so any number of later reads, in any order, are cheap.
    /// Like `encode`, it reads the pixels: damage in the source bytes fails as `.damaged`, and
    /// what the decoder worked around comes back as `warnings`.
    func inMemory() throws(VipsError) -> (image: VipsImage, warnings: [String]) {
        let (copy, record) = VipsErrorLog.record({ vips_image_copy_memory(pointer) }, failed: { $0 == nil })
        guard let copy else {
            let error = VipsError.operationFailed(operation: "copy_memory", message: record.message ?? "libvips gave no message")
            throw DamageCheck.damage(of: origin, after: error) ?? error
        }
        return (VipsImage(owning: copy), DamageCheck.warnings(record.warnings, clean: record.clean, origin: origin))
    }

    /// The mean of every pixel of every band. Evaluates the image.
    func average() throws(VipsError) -> Double {
        var value = 0.0
        let (status, message) = VipsErrorLog.call({ cvips_avg(pointer, &value) }, failed: { $0 != 0 })
        guard status == 0 else {
            throw .operationFailed(operation: "avg", message: message ?? "libvips gave no message")
        }
        return value
    }

    /// The mean of each band. Evaluates the image once per band.
    public func bandMeans() throws(VipsError) -> [Double] {
        var means: [Double] = []
        for band in 0..<bands { means.append(try extractBands(from: band, count: 1).average()) }
        return means
    }
}
