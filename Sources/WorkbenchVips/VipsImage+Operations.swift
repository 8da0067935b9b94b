import CVips

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

    /// `M · pixel` for a matrix of rows of numbers (as many columns as bands); the result is float.
    func recomb(rows: [[Double]]) throws(VipsError) -> VipsImage {
        let matrix = try VipsOperationCall.matrix(rows)
        return try VipsOperationCall.image("recomb", self, ["m": .image(matrix)])
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
