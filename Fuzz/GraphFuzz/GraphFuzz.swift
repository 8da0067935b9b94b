import Foundation
import FuzzReplay
import Logging
import WorkbenchCore
import WorkbenchVips

/// Fuzz target: presets that load are *run*, on one small photo, with every libvips operation
/// and filter they may name and whatever parameters the fuzzer finds — what a shared preset can
/// make the engine do. A failed item is the expected answer; a crash, a hang, a file outside the
/// output root or a sanitizer report is a finding. Downloads are left out (no network here).
enum GraphFuzz {
    static let folder: URL = {
        let url = FuzzInput.folder("graph-fuzz")
        try? FileManager.default.createDirectory(at: url.appendingPathComponent("out"), withIntermediateDirectories: true)
        // A small photo to run on, made here so the target needs nothing beside it.
        try? Data(base64Encoded: tinyPNG)?.write(to: url.appendingPathComponent("photo.png"))
        return url
    }()

    /// An 8×6 RGB PNG.
    static let tinyPNG = "iVBORw0KGgoAAAANSUhEUgAAAAgAAAAGCAIAAABxZ0isAAAAY0lEQVR4nA3JIQEAQQhFQZKgCbEh0Jvky5cCTYgNgSbR3dgxM9w4xjVklPGMNcwCD05wAwUVvGDjj8STk9xESSUv2fxDuDjiCokST6z+aLw5zW3UVPOa7T8GH85wBw01vGGHD8x/PnFB5PEWAAAAAElFTkSuQmCC"

    static let loader = PresetLoader(registry: OpRegistry(CoreOps.all, providers: [VipsOps.provider]))

    /// Longest graph run: enough for a chain deeper than `VipsImage.deepestPipeline`, short
    /// enough that a run stays well under a second.
    static let longestGraph = 400

    static func check(_ bytes: [UInt8]) {
        let input = FuzzInput(bytes)
        guard let preset = try? loader.load(json: input.preset, file: folder.appendingPathComponent("fuzz.json").path,
                                            baseDirectory: folder.path, overrides: input.overrides),
              preset.nodes.count <= longestGraph,
              let output = try? OutputRoot(folder.appendingPathComponent("out").path) else { return }
        let item = Item(index: 0, source: folder.appendingPathComponent("photo.png").path)
        let run = PresetRun.start(preset, items: .list([item]), output: output,
                                  options: RunOptions(workers: 2, eventDetail: .none), logger: Logger(label: "fuzz"))
        _ = run.waitUntilFinished()
        // Nothing may be written outside the output root: the folder holds only what we made.
        let top = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        // A finding must stop the fuzzer where it happened, with the input kept: crash on purpose.
        if Set(top) != Set(["out", "photo.png"] + FuzzInput.folderFiles.keys) { fatalError("a preset wrote outside the output root: \(top)") }
    }
}

#if FUZZING
/// The program's entry under the name SwiftPM links it by: libFuzzer takes over from here.
@_cdecl("fuzz_graphs_main")
public func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    FuzzDriver.run(argc, argv) { data, size in
        GraphFuzz.check(data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? [])
        return 0
    }
}
#else
/// Without the fuzzer: runs every file given (or every file in the folders given) once.
@main struct GraphFuzzReplay {
    static func main() { FuzzReplay.run(GraphFuzz.check) }
}
#endif
