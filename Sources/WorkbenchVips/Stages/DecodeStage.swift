import CVips
import WorkbenchCore

/// `decode`: encoded bytes to a lazy libvips image; the format is sniffed from the content.
struct DecodeStage: Stage {
    static let failOnChoices: [String: VipsFailOn] = [
        "none": VIPS_FAIL_ON_NONE, "truncated": VIPS_FAIL_ON_TRUNCATED,
        "error": VIPS_FAIL_ON_ERROR, "warning": VIPS_FAIL_ON_WARNING,
    ]

    static let spec = OpSpec(
        name: "decode", summary: "Decodes bytes into an image (JPEG, PNG, WebP, TIFF, GIF, … sniffed from the content).",
        input: .bytes, output: .image, defaultQueue: "cpu", execution: .cpu,
        parameters: [
            ParameterSpec("fail_on", .choice(["none", "truncated", "error", "warning"]), default: .string("truncated"),
                          "How much damage fails the item: \"truncated\" fails on cut-off files, \"error\" on any decoder error."),
            ParameterSpec("access", .choice(["auto", "sequential", "random"]), default: .string("auto"),
                          "\"sequential\" streams top to bottom with little memory; \"random\" allows any later use; \"auto\" streams when the graph reads the image once, top to bottom."),
            ParameterSpec("maxPixels", .int(1...Int(Int32.max)), default: .int(100_000_000),
                          "Refuse images with more pixels than this (decompression bombs); checked from the header."),
        ])

    static let definition = OpDefinition(spec) { p, facts in
        let access = p.string("access") ?? "auto"
        return DecodeStage(failOn: failOnChoices[p.string("fail_on") ?? "truncated"] ?? VIPS_FAIL_ON_TRUNCATED,
                           sequential: access == "sequential" || (access == "auto" && facts.outputIsReadOnce),
                           maxPixels: p.int("maxPixels") ?? 100_000_000)
    }

    let failOn: VipsFailOn
    let sequential: Bool
    let maxPixels: Int

    func run(_ inputs: StageInputs, context: StageContext) throws -> Payload {
        guard case .bytes(let bytes)? = inputs.first else {
            throw WorkbenchError.unexpectedInput(node: context.nodeID, expected: "bytes")
        }
        let image = try VipsImage.load(bytes, sequential: sequential, failOn: failOn)
        // The header is read before any pixel is decoded, so a bomb costs nothing.
        guard image.width * image.height <= maxPixels else {
            throw VipsError.tooManyPixels(origin: bytes.origin, width: image.width, height: image.height, limit: maxPixels)
        }
        return .image(image)
    }
}
