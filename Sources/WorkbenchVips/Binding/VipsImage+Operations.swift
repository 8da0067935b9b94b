import CVips
import WorkbenchCore

/// The operations the built-in stages use, each a typed call through the generic one.
extension VipsImage {
    func colourspace(_ space: VipsInterpretation) throws(VipsError) -> VipsImage {
        try VipsOperationCall.image("colourspace", self, ["space": .enumeration(Int(space.rawValue))])
    }

    func cast(_ format: VipsBandFormat) throws(VipsError) -> VipsImage {
        try VipsOperationCall.image("cast", self, ["format": .enumeration(Int(format.rawValue))])
    }

    func extractBands(from band: Int, count: Int) throws(VipsError) -> VipsImage {
        try VipsOperationCall.image("extract_band", self, ["band": .int(band), "n": .int(count)])
    }

    func joined(with other: VipsImage) throws(VipsError) -> VipsImage {
        try VipsOperationCall.image("bandjoin", nil, ["in": .images([self, other])])
    }

    /// `M · pixel` for a matrix of rows of numbers (as many columns as bands); the result is float.
    func recomb(rows: [[Double]]) throws(VipsError) -> VipsImage {
        let matrix = try VipsOperationCall.matrix(rows)
        return try VipsOperationCall.image("recomb", self, ["m": .image(matrix)])
    }

    /// The image evaluated into memory, so any number of later reads, in any order, are cheap.
    /// Like `encode`, it reads the pixels: damage in the source bytes fails as `.damaged`, and
    /// what the decoder worked around comes back as `warnings`.
    /// Cancelling `cancellation` stops the evaluation at its next tile.
    func inMemory(cancellation: CancellationToken? = nil) throws(VipsError) -> (image: VipsImage, warnings: [String]) {
        typealias Copied = (UnsafeMutablePointer<CVips.VipsImage>?, VipsErrorLog.Record)
        let (copy, record): Copied = try VipsOperationCall.evaluating([self], cancellation: cancellation) { () throws(VipsError) -> Copied in
            VipsErrorLog.record({ vips_image_copy_memory(pointer) }, failed: { (made: UnsafeMutablePointer<CVips.VipsImage>?) in made == nil })
        }
        guard let copy else {
            let error = VipsError.operationFailed(operation: "copy_memory", message: record.message ?? "libvips gave no message")
            throw DamageCheck.damage(of: origin, after: error) ?? error
        }
        return (VipsImage(owning: copy), try DamageCheck.warnings(record.warnings, clean: record.clean, origin: origin))
    }

    /// Every pixel computed once into memory: for images read many times, and for measuring
    /// how fast a pipeline runs.
    public func materialized() throws(VipsError) -> VipsImage { try inMemory().image }

    /// The mean of every pixel of every band. Evaluates the image; cancelling `cancellation`
    /// stops it at the next tile.
    func average(cancellation: CancellationToken? = nil) throws(VipsError) -> Double {
        guard let info = VipsIntrospection.operation("avg"), let input = info.mainInput else {
            throw .operationFailed(operation: "avg", message: "this libvips has no such operation")
        }
        let outputs = try VipsOperationCall.run(info, [(input, .image(self))], cancellation: cancellation)
        guard let value = outputs.values["out"] as? Double else { throw .operationFailed(operation: "avg", message: "it returned no value") }
        return value
    }

    /// The mean of each band. Evaluates the image once per band.
    public func bandMeans(cancellation: CancellationToken? = nil) throws(VipsError) -> [Double] {
        var means: [Double] = []
        for band in 0..<bands { means.append(try extractBands(from: band, count: 1).average(cancellation: cancellation)) }
        return means
    }
}
