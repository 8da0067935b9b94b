import CVips
import Foundation
import Logging
import Testing
import WorkbenchCore
import WorkbenchKernels
import WorkbenchTestSupport
@testable import WorkbenchVips

private typealias Image = WorkbenchVips.VipsImage

/// Runs the module's stages directly on real images with real libvips. Serialized: libvips keeps
/// one error buffer per process, and these tests read its messages.
@Suite(.serialized) struct VipsStageTests {
    private func context(_ token: CancellationToken = CancellationToken()) throws -> StageContext {
        StageContext(item: Item(index: 0, source: "test.jpg"), nodeID: "node", cancellation: token,
                     output: try OutputRoot(try Fixtures.temporaryDirectory("vips").path), logger: Logger(label: "test"))
    }

    private func sample(_ name: String = "Bridge.jpg") throws -> Bytes {
        let url = Fixtures.samples.appendingPathComponent(name)
        return Bytes(try Data(contentsOf: url), origin: url.path)
    }

    private func run(_ stage: any Stage, _ input: Payload, token: CancellationToken = CancellationToken()) throws -> Payload {
        try stage.run(StageInputs(from: [input]), context: try context(token))
    }

    /// The `sepia` filter's stage with its Swift engine.
    private func sepia(_ intensity: Double) -> any Stage {
        ColourKernelFilters.sepia.makeStage(ParameterValues(["intensity": .double(intensity), "engine": .string("swift")]), NodeFacts())
    }

    private func image(_ payload: Payload) throws -> Image {
        guard case .image(let handle) = payload, let image = handle as? Image else { throw TestFailure("not an image") }
        return image
    }

    private func bytes(_ payload: Payload) throws -> Data {
        guard case .bytes(let bytes) = payload else { throw TestFailure("not bytes") }
        return bytes.data
    }

    private func shrink(_ image: Image, _ width: Int, _ height: Int) throws -> Image {
        try VipsOperationCall.image("thumbnail_image", image, ["width": .int(width), "height": .int(height)])
    }

    private func encode(_ image: Image, _ format: String) throws -> Data {
        try image.encode(try #require(EncodeFormat.named(format)), options: [:], cancellation: CancellationToken()).data
    }

    @Test func decodeSniffsTheFormatFromTheContent() throws {
        let jpeg = try image(run(OpenStage(options: DecodeOptions(failOn: .error, sequential: false, maxPixels: 100_000_000, pages: 1, autorotate: true, toSRGB: true)), .bytes(sample())))
        #expect(jpeg.width == 1600 && jpeg.height == 900 && jpeg.bands == 3)
        #expect(jpeg.loader == "jpegload_buffer")
        // PNG bytes that claim to be a JPEG by name.
        let png = try encode(shrink(jpeg, 64, 64), "png")
        let decoded = try image(run(OpenStage(options: DecodeOptions(failOn: .error, sequential: true, maxPixels: 100_000_000, pages: 1, autorotate: true, toSRGB: true)),
                                    .bytes(Bytes(png, origin: "liar.jpg"))))
        #expect(decoded.loader == "pngload_buffer")
        #expect(decoded.width == 64)
    }

    @Test func garbageIsADecodeErrorNotACrash() throws {
        let stage = OpenStage(options: DecodeOptions(failOn: .truncated, sequential: true, maxPixels: 100_000_000, pages: 1, autorotate: true, toSRGB: true))
        #expect {
            try run(stage, .bytes(Bytes(Data("not an image at all".utf8), origin: "garbage.jpg")))
        } throws: { error in
            let text = "\(error)"
            return text.hasPrefix("Cannot decode \"garbage.jpg\": ") && text.contains("not in a known format")
        }
        #expect(throws: VipsError.self) { try run(stage, .bytes(Bytes(Data(), origin: "empty.jpg"))) }
    }

    /// libvips reads pixels lazily: the damage shows while encoding, and is blamed on the decode.
    @Test func truncatedJPEGFailsWhenEvaluated() throws {
        let whole = try sample()
        let cut = Bytes(whole.data.prefix(whole.data.count / 2), origin: "cut.jpg")
        let decoded = try run(OpenStage(options: DecodeOptions(failOn: .truncated, sequential: true, maxPixels: 100_000_000, pages: 1, autorotate: true, toSRGB: true)), .bytes(cut))
        let encode = EncodeStage(format: try #require(EncodeFormat.named("jpeg")), options: ["Q": .int(80), "strip": .bool(true)])
        #expect {
            try run(encode, decoded)
        } throws: { error in
            guard case .damaged(let origin, let message, let node)? = error as? VipsError else { return false }
            return origin == "cut.jpg" && message.lowercased().contains("premature end") && node == "node"
        }
    }

    @Test func pixelLimitIsCheckedFromTheHeader() throws {
        #expect {
            try run(OpenStage(options: DecodeOptions(failOn: .none, sequential: true, maxPixels: 1_000_000, pages: 1, autorotate: true, toSRGB: true)), .bytes(sample()))
        } throws: { error in
            guard case .tooManyPixels(_, 1600, 900, 1_000_000)? = error as? VipsError else { return false }
            return "\(error)".contains("1600×900")
        }
    }

    @Test func theRunPlanFusesADecodeWithTheResizeThatAloneReadsIt() throws {
        let registry = OpRegistry(CoreOps.all + VipsOps.all)
        /// Whether the plan fused node "d" (a decode) with its reader.
        func fused(_ graph: String) throws -> Bool? {
            let json = #"{"version": 1, "graph": "# + graph + "}"
            let preset = try PresetLoader(registry: registry).load(json: Array(json.utf8), file: "plan.json", baseDirectory: ".")
            return (preset.nodes.first { $0.id == "d" }?.stage as? OpenStage)?.fusedWithResize
        }
        #expect(try fused(#"[{"op": "read"}, {"id": "d", "op": "decode"}, {"id": "t", "op": "thumbnail", "width": 100}, {"op": "encode", "format": "png"}, {"op": "write", "path": "x.png"}]"#) == true)
        #expect(try fused(#"[{"op": "read"}, {"id": "d", "op": "decode"}, {"id": "t", "op": "thumbnail", "width": 100}, {"op": "encode", "format": "png"}, {"op": "write", "path": "x.png"}, {"id": "g", "op": "grayscale", "from": "d"}, {"id": "e2", "op": "encode", "format": "png"}, {"id": "w2", "op": "write", "path": "y.png"}]"#) == false)
        #expect(try fused(#"[{"op": "read"}, {"id": "d", "op": "decode"}, {"op": "sepia"}, {"op": "encode", "format": "png"}, {"op": "write", "path": "x.png"}]"#) == false)

        // Fused, the resize decodes the JPEG at 1/8 scale; given a decoded image, it resamples it.
        let options = DecodeOptions(failOn: .error, sequential: true, maxPixels: 100_000_000, pages: 1, autorotate: true, toSRGB: true)
        let fused = try run(OpenStage(options: options, fusedWithResize: true), .bytes(sample("Wine.jpg")))
        let plain = try run(OpenStage(options: options), .bytes(sample("Wine.jpg")))
        guard case .image(let handle) = fused, handle is ShrinkableImage else { throw TestFailure("the fused decode handed no bytes") }
        let resize = ResizeStage(.init(width: 100, fastShrink: true), outputIsReadOnce: true)
        let small = try image(run(resize, fused)), resampled = try image(run(resize, plain))
        #expect((small.width, resampled.width) == (100, 100))
        #expect(small.origin?.jpegShrink == 8 && resampled.origin?.jpegShrink == 1)
    }

    @Test func thumbnailFitsContainCoverAndFill() throws {
        // Wine.jpg is a 1068×1600 portrait.
        let decoded = Payload.image(try Image.decode(sample("Wine.jpg").data, origin: "Wine.jpg"))
        func fit(_ width: Int?, _ height: Int?, _ fit: ResizeStage.Fit = .contain, upscale: Bool = false) throws -> (Int, Int) {
            let out = try image(run(ResizeStage(.init(width: width, height: height, fit: fit, upscale: upscale, fastShrink: true), outputIsReadOnce: true), decoded))
            return (out.width, out.height)
        }
        #expect(try fit(512, nil) == (512, 767))
        #expect(try fit(nil, 300) == (200, 300))
        #expect(try fit(512, 300) == (200, 300))
        #expect(try fit(512, 300, .cover) == (512, 300))
        #expect(try fit(512, 300, .fill) == (512, 300))
        // No enlarging unless asked.
        #expect(try fit(4000, nil) == (1068, 1600))
        #expect(try fit(3200, nil, upscale: true) == (3200, 4794))
        let half = try image(run(ResizeStage(.init(scale: 0.25, fastShrink: true), outputIsReadOnce: true), decoded))
        #expect((half.width, half.height) == (267, 400))
    }

    @Test func sepiaTurnsGreyBrownAndKeepsAlpha() throws {
        let photo = try Image.decode(sample().data, origin: "Bridge.jpg")
        let grey = try photo.colourspace(VIPS_INTERPRETATION_B_W)
        #expect(grey.bands == 1)
        let toned = try image(run(sepia(1), .image(grey)))
        let means = try toned.bandMeans()
        #expect(toned.bands == 3)
        #expect(means[0] > means[1] && means[1] > means[2])
        #expect(means[0] - means[2] > 20)

        let untouched = try image(run(sepia(0), .image(photo)))
        let before = try photo.bandMeans(), after = try untouched.bandMeans()
        for band in 0..<3 { #expect(abs(before[band] - after[band]) < 0.01) }

        // An RGBA image keeps its alpha band untouched.
        let rgba = try photo.joined(with: grey)
        let tonedRGBA = try image(run(sepia(0.8), .image(rgba)))
        #expect(tonedRGBA.bands == 4)
        #expect(abs(try tonedRGBA.bandMeans()[3] - grey.bandMeans()[0]) < 0.01)
    }

    @Test func kernelNodeHoldsItsInput() throws {
        // The kernel node holds its input: the caller may let go of it before evaluating.
        let photo = try Image.decode(sample().data, origin: "Bridge.jpg")
        var kernelImage: Image?
        do {
            let temporary = try shrink(photo, 200, 200)
            kernelImage = try temporary.applying(ColourMatrixKernel(name: "sepia", matrix: .sepia(intensity: 1)), cancellation: nil)
        }
        let means = try #require(kernelImage).bandMeans()
        #expect(means[0] > means[1] && means[1] > means[2])
    }

    @Test func encodesEachFormat() throws {
        let small = try shrink(Image.decode(sample().data, origin: "Bridge.jpg"), 100, 100)
        #expect(try encode(small, "jpeg").starts(with: [0xFF, 0xD8, 0xFF]))
        #expect(try encode(small, "png").starts(with: [0x89, 0x50, 0x4E, 0x47]))
        let webp = try encode(small, "webp")
        #expect(webp.prefix(4) == Data("RIFF".utf8) && webp.dropFirst(8).prefix(4) == Data("WEBP".utf8))
    }

    @Test func cancelledEncodeStopsBeforeWork() throws {
        let token = CancellationToken()
        token.cancel()
        let decoded = Payload.image(try Image.decode(sample().data, origin: "Bridge.jpg"))
        let encode = EncodeStage(format: try #require(EncodeFormat.named("jpeg")), options: ["Q": .int(80), "strip": .bool(true)])
        #expect(throws: VipsError.self) { try run(encode, decoded, token: token) }
    }
}

/// Every op's parameters are declared once, bound to fields (`OpParameters`): the corridor's
/// and the filters' alike.
@Suite struct OpParametersTests {
    @Test func theCorridorsValuesReachTheirStagesAsFields() throws {
        // Defaults are the fields' initial values, declared nowhere else.
        let fastShrink = try #require(ResizeStage.definitions[0].spec.parameters.first { $0.name == "fastShrink" })
        #expect(fastShrink.defaultValue == .bool(false))
        #expect(OpenStage.spec.parameters.first { $0.name == "failOn" }?.defaultValue == .string("truncated"))
        #expect(OpenStage.spec.parameters.first { $0.name == "access" }?.type == .choice(["auto", "sequential", "random"]))
        let resize = try #require(ResizeStage.definitions[1].makeStage(
            ParameterValues(["width": .int(300), "height": .int(200), "fit": .string("cover"), "crop": .string("attention")]), NodeFacts()) as? ResizeStage)
        #expect(resize.parameters.width == 300 && resize.parameters.fit == .cover && resize.parameters.crop == .attention)
        #expect(!resize.parameters.fastShrink && resize.parameters.scale == nil)
        // A fit other than contain needs both sides; the check reads the same fields.
        #expect(ResizeStage.spec(name: "thumbnail").check?(ParameterValues(["width": .int(3), "fit": .string("fill")])) != nil)
        let decode = try #require(OpenStage.definition.makeStage(
            ParameterValues(["access": .string("auto"), "failOn": .string("error"), "maxMemory": .int(3), "pages": .string("all")]),
            NodeFacts(outputIsReadOnce: true)) as? OpenStage)
        #expect(decode.options.sequential && decode.options.failOn == .error && decode.options.maxMemory == 3 << 20 && decode.options.pages == -1)
        #expect(EncodeStage.definition.spec.parameters.first { $0.name == "format" }?.isRequired == true)
    }

    @Test func theFiltersValuesReachTheirKernelsAsFieldsWithTheirDefaultsDeclaredOnce() throws {
        func spec(_ op: String, _ name: String) throws -> ParameterSpec {
            let definition = try #require(VipsOps.all.first { $0.spec.name == op })
            return try #require(definition.spec.parameters.first { $0.name == name })
        }
        // The declared default is the field's initial value, written back as a preset writes it.
        #expect(try spec("duotone", "shadows").defaultValue == .list([.int(20), .int(30), .int(80)]))
        #expect(try spec("sharpen", "sigma").defaultValue == .double(0.5) && (try spec("sharpen", "sigma")).measuresPixels)
        #expect(try spec("tint", "colour").isRequired && (try spec("tint", "colour")).aliases == ["color"])
        let scale = try spec("watermark", "scale")
        #expect(scale.measuresPixels && scale.isFactor && scale.unusedWith == "size" && scale.recipeOmitsDefault && scale.defaultValue == .double(1))
        // Every kernel filter's engine is read through one binding; its choices say which engines exist.
        #expect(try spec("grain", "engine").type == .choice(["auto", "swift"]))
        #expect(try spec("sepia", "engine").type == .choice(["auto", "swift", "vips"]))
        #expect(KernelFilter.EngineChoice(ParameterValues(["engine": .string("vips")])).engine == .vips)
        // Values given reach the fields; what is not given keeps the default.
        let tint = ColourKernelFilters.TintParameters(ParameterValues(["colour": .list([.int(10), .double(20.5), .int(30)])]))
        #expect(tint.colour == [10, 20.5, 30] && tint.amount == 1)
        let convolve = AreaKernelFilters.ConvolveParameters(ParameterValues(["mask": .list([.list([.int(1), .int(2), .int(1)])])]))
        #expect(convolve.mask == [[1, 2, 1]] && convolve.divisor == 4 && convolve.offset == 0)
        #expect(GeometryFilters.Crop(ParameterValues(["gravity": .string("north-east")])).gravity == .northEast)
    }
}
