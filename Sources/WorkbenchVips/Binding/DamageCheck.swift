import CVips

/// Finds whether an image's source bytes are damaged, by decoding them again, alone.
///
/// libvips decodes lazily: a truncated or corrupt file opens fine and fails (or warns) only when
/// its pixels are read, which is usually while encoding. When an evaluation fails or warns, the
/// source is decoded once more to the end with the same settings and no other libvips call
/// running, which says whether the damage is in the bytes and gives libvips' own words for it.
enum DamageCheck {
    struct Finding {
        /// Why the bytes do not decode, or nil if they do.
        var failure: String?
        /// What the decoder worked around.
        var warnings: [String]
    }

    /// The error for an evaluation of an image made from `origin` that failed with `error`:
    /// `.damaged` (blamed on the decode) when the bytes do not decode, else nil.
    static func damage(of origin: DecodedSource?, after error: VipsError) -> VipsError? {
        guard case .operationFailed = error, let origin, let failure = inspect(origin).failure,
              // Memory refused again (libjpeg's "Insufficient memory" under a limit) says
              // nothing of the bytes: the first error, with its advice, stands.
              !VipsError.isMemory(failure) else { return nil }
        return .damaged(origin: origin.bytes.origin, message: failure, node: origin.node)
    }

    /// The warnings an evaluation of an image made from `origin` may report as its own: all of
    /// them when no other call ran beside it, else what decoding the source alone gives — each
    /// once: decoding the whole file alone can repeat a warning the evaluation gave once, so the
    /// report would depend on whether another item happened to run beside it.
    ///
    /// libvips 8.14 sometimes loses a libjpeg error raised on one of its worker threads (a
    /// damaged Huffman table: 1–2 runs in 40): the evaluation ends well, "error in tile 0 x 0"
    /// and libjpeg's error among what it logged. Such an evaluation fails as `.damaged` unless
    /// the decode accepts damage (`failOn` "none"), as it fails when libvips keeps the error.
    static func warnings(_ logged: [String], clean: Bool, origin: DecodedSource?) throws(VipsError) -> [String] {
        var found = logged
        if !logged.isEmpty && !clean, let origin {
            let alone = inspect(origin)
            if let failure = alone.failure, origin.options.failOn != .none, !VipsError.isMemory(failure) {
                throw .damaged(origin: origin.bytes.origin, message: failure, node: origin.node)
            }
            found = alone.warnings
        }
        if let origin, origin.options.failOn != .none, let error = found.first(where: isDecoderError) {
            throw .damaged(origin: origin.bytes.origin, message: error, node: origin.node)
        }
        var seen = Set<String>()
        return found.filter { seen.insert($0).inserted }
    }

    /// libjpeg's warnings (its JWRN messages, which libvips passes on as "VipsJpeg: …"); every
    /// other message of libjpeg is an error that stopped its decode.
    private static let libjpegWarnings = ["Corrupt JPEG data", "Premature end of JPEG file", "Inconsistent progression sequence",
                                          "Invalid SOS parameters", "Warning:", "Unknown Adobe color transform",
                                          "Application transferred too many scanlines"]

    /// Whether a line libvips logged says a decode stopped: a libjpeg error, or a tile libvips
    /// could not make.
    static func isDecoderError(_ line: String) -> Bool {
        if line.contains("error in tile") { return true }
        guard let range = line.range(of: "VipsJpeg: ") else { return false }
        let text = line[range.upperBound...]
        return !libjpegWarnings.contains { text.hasPrefix($0) }
    }

    static func inspect(_ source: DecodedSource) -> Finding {
        // The body turns every error into a Finding itself, so `alone` never throws here.
        (try? VipsErrorLog.alone { () throws(VipsError) -> Finding in
            let image: VipsImage
            do throws(VipsError) {
                image = try open(source)
            } catch {
                if case .decodeFailed(_, let message) = error { return Finding(failure: message, warnings: []) }
                return Finding(failure: error.description, warnings: [])
            }
            // One libvips thread: with more, a statistic like avg can end "successfully" after a
            // worker's tile failed (measured on 8.14: 12 of 20 runs of one truncated JPEG). No
            // other evaluation runs meanwhile (this is `alone`), so the global setting is ours.
            let threads = vips_concurrency_get()
            vips_concurrency_set(1)
            defer { vips_concurrency_set(threads) }
            var mean = 0.0
            let (status, record) = VipsErrorLog.record({ cvips_avg(image.pointer, &mean) }, failed: { $0 != 0 })
            return Finding(failure: status == 0 ? nil : record.message ?? "libvips gave no message", warnings: record.warnings)
        }) ?? Finding(failure: nil, warnings: [])
    }

    /// The source opened as `decode` opened it, a JPEG at the DCT scale it was decoded at.
    private static func open(_ source: DecodedSource) throws(VipsError) -> VipsImage {
        if source.jpegShrink > 1, FormatSniffer.loader(for: source.bytes.data) == "jpegload_buffer" {
            do throws(VipsError) {
                return try VipsOperationCall.image("jpegload_buffer", nil, [
                    "buffer": .blob(source.bytes.data), "shrink": .int(source.jpegShrink),
                    "access": .access(sequential: true), "fail_on": .failOn(source.options.failOn),
                ])
            } catch {
                if case .operationFailed(_, let message) = error { throw .decodeFailed(origin: source.bytes.origin, message: message) }
                throw error
            }
        }
        return try VipsImage.open(source.bytes, sequential: true, failOn: source.options.failOn,
                                  pages: source.options.pages == 1 ? 0 : Int32(source.options.pages))
    }
}
