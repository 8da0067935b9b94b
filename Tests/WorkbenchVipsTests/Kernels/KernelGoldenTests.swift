import CVips
import Foundation
import Testing
import WorkbenchCore
import WorkbenchKernels
import WorkbenchTestSupport
@testable import WorkbenchVips

typealias KernelTestImage = WorkbenchVips.VipsImage
private typealias Image = KernelTestImage

/// Every kernel filter's Swift engine gives libvips' pixels: the same filter through its
/// libvips engine (libvips' own operations) differs by at most 1 per sample, on real photos,
/// 8-bit and 16-bit. Each case also changes the photo, so agreement is not both doing nothing.
@Suite(.serialized) struct KernelGoldenTests {
    struct Case: Sendable, CustomTestStringConvertible {
        let op: String
        let parameters: [String: ParameterValue]
        var testDescription: String { op }
        init(_ op: String, _ parameters: [String: ParameterValue] = [:]) {
            self.op = op
            self.parameters = parameters
        }
    }

    static let cases = [
        Case("invert"),
        Case("levels", ["inBlack": .double(20), "inWhite": .double(230), "gamma": .double(1.4), "outBlack": .double(10), "outWhite": .double(240)]),
        Case("posterize", ["levels": .int(5)]),
        Case("solarize", ["threshold": .double(140)]),
        Case("brightness", ["amount": .double(1.3)]),
        Case("contrast", ["amount": .double(1.4)]),
        Case("gamma", ["gamma": .double(1.8)]),
        Case("channelMixer", ["matrix": matrix([[0.6, 0.4, 0], [-0.2, 1.1, 0.1], [0, 0.3, 0.7]])]),
        Case("sepia", ["intensity": .double(0.8)]),
        Case("tint", ["colour": .list([.int(255), .int(160), .int(60)]), "amount": .double(0.7)]),
        Case("duotone", ["shadows": .list([.int(30), .int(10), .int(60)]), "highlights": .list([.int(250), .int(220), .int(140)])]),
        Case("threshold", ["level": .double(110)]),
        Case("grayscale"),
        Case("saturation", ["amount": .double(1.7)]),
        Case("vignette", ["strength": .double(0.8), "radius": .double(0.3), "softness": .double(0.6)]),
        Case("boxBlur", ["radius": .int(7)]),
        Case("pixelate", ["size": .int(10)]),
        Case("median", ["size": .int(3)]),
        Case("median", ["size": .int(5)]),
        Case("convolve", ["mask": matrix([[0, -1, 0], [-1, 5, -1], [0, -1, 0]])]),
        Case("convolve", ["mask": matrix([[0.5, 1, 0.5], [1, 2, 1], [0.5, 1, 0.5]]), "offset": .double(3)]),
    ]

    static func matrix(_ rows: [[Double]]) -> ParameterValue { .list(rows.map { .list($0.map { .double($0) }) }) }

    @Test(arguments: cases)
    func swiftEngineGivesLibvipsPixels(_ golden: Case) throws {
        let definition = try #require(VipsOps.all.first { $0.spec.name == golden.op })
        for photo in ["Bridge.jpg", "Wine.jpg"] {
            // 400×300 (a multiple of pixelate's squares), so edge squares are whole on both engines.
            let eight = try KernelImages.photo(photo, width: 400, height: 300)
            let sixteen = try eight.colourspace(VIPS_INTERPRETATION_RGB16)
            for image in [eight, sixteen] {
                let swift = try KernelImages.run(definition, golden.parameters, engine: "swift", on: image)
                let vips = try KernelImages.run(definition, golden.parameters, engine: "vips", on: image)
                let depth = image.format == VIPS_FORMAT_USHORT ? "16-bit" : "8-bit"
                #expect(swift.format == vips.format && swift.bands == vips.bands, "\(golden.op) \(photo) \(depth)")
                #expect((swift.width, swift.height) == (image.width, image.height))
                let difference = try KernelImages.largestDifference(swift, vips)
                #expect(difference <= 1, "\(golden.op) on \(photo), \(depth): engines differ by \(difference)")
                // A grey result is compared with the red band: it must not simply be the input.
                let comparable = swift.bands == image.bands ? image : try image.extractBands(from: 0, count: swift.bands)
                #expect(try KernelImages.meanDifference(swift, comparable) > 0.5, "\(golden.op) left \(photo) as it was")
            }
        }
    }

    @Test func autoRunsTheEngineMeasuredFaster() throws {
        let image = try KernelImages.photo("Bridge.jpg", width: 400, height: 300)
        // A 5×5 mask that is not separable is faster through libvips, sepia through Swift
        // (bench/kernels.sh); their engines differ slightly, so the output tells which one ran.
        let rows: [[Double]] = [[0.2, -0.1, 0.5, 0.3, 0.1], [0.4, 0.1, -0.2, 0.3, 0.2], [0.1, 0.6, 1.2, 0.2, -0.3],
                                [0.3, -0.2, 0.2, 0.5, 0.1], [0.1, 0.2, 0.3, -0.1, 0.4]]
        let mask = Self.matrix(rows)
        for (op, parameters, faster) in [("convolve", ["mask": mask], "vips"),
                                         ("sepia", ["intensity": ParameterValue.double(0.8)], "swift")] {
            let definition = try #require(VipsOps.all.first { $0.spec.name == op })
            let auto = try KernelImages.run(definition, parameters, engine: "auto", on: image)
            let fast = try KernelImages.run(definition, parameters, engine: faster, on: image)
            let slow = try KernelImages.run(definition, parameters, engine: faster == "vips" ? "swift" : "vips", on: image)
            #expect(try KernelImages.largestDifference(auto, fast) == 0, "\(op)")
            #expect(try KernelImages.largestDifference(auto, slow) > 0, "\(op): the engines gave the same pixels")
        }
    }

    @Test func curvesMapThroughTheirMonotoneCurve() throws {
        let definition = try #require(VipsOps.all.first { $0.spec.name == "curves" })
        let points: [[Double]] = [[0, 10], [60, 40], [190, 220], [255, 250]]
        let curve = MonotoneCurve(points.map { ($0[0] / 255, $0[1] / 255) })
        for image in [try KernelImages.photo("Bridge.jpg", width: 400, height: 300)] {
            let ours = try KernelImages.run(definition, ["points": Self.matrix(points)], engine: "swift", on: image)
            // libvips' maplut with a table of the curve: the same pixels by another road.
            let table = try VipsOperationCall.matrix([(0...255).map { (curve.value(at: Double($0) / 255) * 255).rounded() }])
            let reference = try VipsOperationCall.image("maplut", image, ["lut": .image(table.cast(VIPS_FORMAT_UCHAR))])
            #expect(try KernelImages.largestDifference(ours, reference) <= 1)
        }
    }
}

/// Images and measurements for the kernel tests.
enum KernelImages {
    static func photo(_ name: String, width: Int, height: Int) throws -> KernelTestImage {
        let url = Fixtures.samples.appendingPathComponent(name)
        let decoded = try KernelTestImage.decode(try Data(contentsOf: url), origin: name)
        let image = try VipsOperationCall.image("thumbnail_image", decoded, ["width": .int(width), "height": .int(height), "crop": .string("centre")])
        return try image.inMemory().image
    }

    /// `definition`'s stage with `parameters` (and the op's defaults) on `image`.
    static func run(_ definition: OpDefinition, _ parameters: [String: ParameterValue], engine: String, on image: KernelTestImage) throws -> KernelTestImage {
        var values: [String: ParameterValue] = [:]
        for parameter in definition.spec.parameters { values[parameter.name] = parameter.defaultValue }
        values.merge(parameters) { $1 }
        values["engine"] = .string(engine)
        let stage = definition.makeStage(ParameterValues(values), NodeFacts())
        let context = StageContext(item: Item(index: 0, source: "test"), nodeID: definition.spec.name, cancellation: CancellationToken(),
                                   output: try OutputRoot(try Fixtures.temporaryDirectory("kernels").path), logger: .init(label: "test"))
        guard case .image(let handle) = try stage.run(StageInputs(from: [.image(image)]), context: context),
              let result = handle as? KernelTestImage else { throw TestFailure("not an image") }
        return result
    }

    static func largestDifference(_ a: KernelTestImage, _ b: KernelTestImage) throws -> Double {
        let difference = try VipsOperationCall.image("abs", VipsOperationCall.image("subtract", a, ["right": .image(b)]))
        let info = try #require(VipsIntrospection.operations["max"])
        return try VipsOperationCall.run(info, [(try #require(info.mainInput), .image(difference))]).values["out"] as? Double ?? .infinity
    }

    static func meanDifference(_ a: KernelTestImage, _ b: KernelTestImage) throws -> Double {
        try VipsOperationCall.image("abs", VipsOperationCall.image("subtract", a, ["right": .image(b)])).average()
    }
}
