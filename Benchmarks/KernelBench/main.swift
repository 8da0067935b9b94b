// `swift run -c release kernel-bench [PHOTO] [RUNS]`: every kernel filter with a libvips
// equivalent, Swift engine against libvips engine, in MPix/s on a 24 MP photo decoded once into
// memory, with one and with two libvips threads. Prints the median of RUNS runs (default 5) and
// the ratio; bench/kernels.sh runs it. `kernel-bench PHOTO RUNS grayscale,boxBlur` runs only
// the filters whose labels start so.
import Foundation
import Logging
import WorkbenchCore
import WorkbenchVips

let arguments = CommandLine.arguments.dropFirst()
let photo = arguments.first ?? "Presets/samples/Bridge.jpg"
let runs = arguments.dropFirst().first.flatMap(Int.init) ?? 5
/// Only the filters whose labels start with one of these (comma-separated), if given.
let only = arguments.dropFirst(2).first.map { $0.split(separator: ",").map(String.init) }
let (width, height) = (6000, 4000)

func stage(_ op: String, _ parameters: [String: ParameterValue]) throws -> any Stage {
    guard let definition = VipsOps.all.first(where: { $0.spec.name == op }) else { throw WorkbenchError.unexpectedInput(node: op, expected: "a filter of this name") }
    var values: [String: ParameterValue] = [:]
    for parameter in definition.spec.parameters { values[parameter.name] = parameter.defaultValue }
    values.merge(parameters) { $1 }
    return definition.makeStage(ParameterValues(values), NodeFacts())
}

let output = try OutputRoot(FileManager.default.temporaryDirectory.appendingPathComponent("kernel-bench").path)
func apply(_ stage: any Stage, to image: VipsImage) throws -> VipsImage {
    let context = StageContext(item: Item(index: 0, source: photo), nodeID: "bench", cancellation: CancellationToken(),
                               output: output, logger: Logger(label: "bench"))
    guard case .image(let handle) = try stage.run(StageInputs(from: [.image(image)]), context: context),
          let result = handle as? VipsImage else { throw WorkbenchError.unexpectedInput(node: "bench", expected: "an image") }
    return result
}

let decoded = try VipsImage.decode(try Data(contentsOf: URL(fileURLWithPath: photo)), origin: photo)
let source = try apply(stage("thumbnail", ["width": .int(width), "height": .int(height), "fit": .string("cover"), "upscale": .bool(true)]),
                       to: decoded).materialized()
let megapixels = Double(source.width * source.height) / 1e6

/// A 3 MP crop, for comparisons too slow to run on the whole photo.
let crop = try apply(stage("crop", ["width": .int(2000), "height": .int(1500)]), to: source).materialized()

/// Median seconds to build the filter's node and compute every pixel of `image` into memory.
func seconds(_ stage: any Stage, on image: VipsImage, runs: Int) throws -> Double {
    var times: [Double] = []
    if runs > 1 { _ = try apply(stage, to: image).materialized() }
    for _ in 0..<runs {
        let start = DispatchTime.now().uptimeNanoseconds
        _ = try apply(stage, to: image).materialized()
        times.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9)
    }
    return times.sorted()[times.count / 2]
}

struct Case {
    let label: String
    let op: String
    let parameters: [String: ParameterValue]
    /// Another op as the libvips side (else the filter's own libvips engine).
    var versus: (op: String, parameters: [String: ParameterValue])? = nil
    /// Slow comparisons run once, on a 3 MP crop.
    var once = false
}

func matrix(_ rows: [[Double]]) -> ParameterValue { .list(rows.map { .list($0.map { .double($0) }) }) }
let box41 = matrix(Array(repeating: Array(repeating: 1, count: 41), count: 41))

let cases: [Case] = [
    Case(label: "invert", op: "invert", parameters: [:]),
    Case(label: "levels", op: "levels", parameters: ["inBlack": .double(20), "inWhite": .double(230), "gamma": .double(1.4)]),
    Case(label: "posterize 5", op: "posterize", parameters: ["levels": .int(5)]),
    Case(label: "solarize", op: "solarize", parameters: [:]),
    Case(label: "brightness", op: "brightness", parameters: ["amount": .double(1.2)]),
    Case(label: "contrast", op: "contrast", parameters: ["amount": .double(1.2)]),
    Case(label: "gamma", op: "gamma", parameters: ["gamma": .double(1.8)]),
    Case(label: "channelMixer", op: "channelMixer", parameters: ["matrix": matrix([[0.6, 0.4, 0], [-0.2, 1.1, 0.1], [0, 0.3, 0.7]])]),
    Case(label: "sepia", op: "sepia", parameters: ["intensity": .double(0.8)]),
    Case(label: "tint", op: "tint", parameters: ["colour": .list([.int(255), .int(160), .int(60)])]),
    Case(label: "duotone", op: "duotone", parameters: [:]),
    Case(label: "threshold", op: "threshold", parameters: [:]),
    Case(label: "grayscale", op: "grayscale", parameters: [:]),
    Case(label: "saturation", op: "saturation", parameters: ["amount": .double(1.5)]),
    Case(label: "vignette", op: "vignette", parameters: [:]),
    Case(label: "boxBlur r5", op: "boxBlur", parameters: ["radius": .int(5)]),
    Case(label: "boxBlur r20", op: "boxBlur", parameters: ["radius": .int(20)]),
    Case(label: "boxBlur r20 vs conv 3MP", op: "boxBlur", parameters: ["radius": .int(20)],
         versus: ("vips.conv", ["mask": box41, "precision": .string("integer")]), once: true),
    Case(label: "pixelate 16", op: "pixelate", parameters: ["size": .int(16)]),
    Case(label: "median 3", op: "median", parameters: ["size": .int(3)]),
    Case(label: "median 5", op: "median", parameters: ["size": .int(5)]),
    Case(label: "convolve 3×3", op: "convolve", parameters: ["mask": matrix([[0, -1, 0], [-1, 5, -1], [0, -1, 0]])]),
    Case(label: "convolve 7×7 separable", op: "convolve", parameters: ["mask": matrix(Array(repeating: [1, 2, 3, 4, 3, 2, 1], count: 7))]),
    Case(label: "convolve 7×7 other", op: "convolve",
         parameters: ["mask": matrix((0..<7).map { r in (0..<7).map { c in Double((r * 7 + c) % 5) - 1 } })]),
]

print("Kernel throughput on \(source.width)×\(source.height) (\(String(format: "%.1f", megapixels)) MP, 8-bit sRGB, in memory), MPix/s, median of \(runs) runs")
fflush(nil)
print("filter".padding(toLength: 22, withPad: " ", startingAt: 0) + "  swift 1t   vips 1t   ratio   swift 2t   vips 2t   ratio")
for test in cases where only.map({ $0.contains { test.label.hasPrefix($0) } }) ?? true {
    let runs = test.once ? 1 : runs
    let image = test.once ? crop : source
    let megapixels = Double(image.width * image.height) / 1e6
    var line = test.label.padding(toLength: 22, withPad: " ", startingAt: 0)
    for threads in [1, 2] {
        VipsRuntime.shareCores(workers: threads, items: 1)
        let swift = try seconds(stage(test.op, test.parameters.merging(["engine": .string("swift")]) { $1 }), on: image, runs: runs)
        let vips = try seconds(test.versus.map { try stage($0.op, $0.parameters) }
                               ?? stage(test.op, test.parameters.merging(["engine": .string("vips")]) { $1 }), on: image, runs: runs)
        line += String(format: "  %8.1f  %8.1f  %6.2f×", megapixels / swift, megapixels / vips, vips / swift)
        line += threads == 1 ? " " : ""
    }
    print(line)
    fflush(nil)
}

// What a pixel costs with no work at all: libvips passing the photo through (a crop of all of
// it) into memory. Table-shaped kernels (invert, levels, gamma, …) on either engine stay below it.
if only == nil || only?.contains(where: { "floor".hasPrefix($0) }) == true {
    var line = "floor: no work".padding(toLength: 22, withPad: " ", startingAt: 0)
    for threads in [1, 2] {
        VipsRuntime.shareCores(workers: threads, items: 1)
        line += String(format: "  %8s  %8.1f  %7s", "", megapixels / (try seconds(stage("crop", ["width": .int(source.width), "height": .int(source.height)]), on: source, runs: runs)), "")
        line += threads == 1 ? " " : ""
    }
    print(line)
}

