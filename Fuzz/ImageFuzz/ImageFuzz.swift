import Foundation
import Logging
import FuzzReplay
import WorkbenchCore
import WorkbenchVips

/// Fuzz target: arbitrary bytes through the real stages of a thumbnail job — decode (any
/// format libvips sniffs, header checks, orientation, colour), thumbnail with shrink-on-load,
/// the Swift sepia kernel, metadata stripping and JPEG encoding. Errors are expected; a crash,
/// a hang or a sanitizer report is a finding.
enum ImageFuzz {
    static let nodes: [NodeSpec] = {
        let json = #"""
            {"version": 1, "graph": [{"op": "read"}, {"op": "decode", "maxPixels": 4000000}, {"op": "thumbnail", "width": 64},
              {"op": "sepia"}, {"op": "encode", "format": "jpeg"}]}
            """#
        let loader = PresetLoader(registry: OpRegistry(CoreOps.all, providers: [VipsOps.provider]))
        guard let preset = try? loader.load(json: Array(json.utf8), file: "image-fuzz.json", baseDirectory: "/") else { return [] }
        return Array(preset.nodes.dropFirst())
    }()

    static let output: OutputRoot? = try? OutputRoot(FileManager.default.temporaryDirectory.appendingPathComponent("image-fuzz").path)

    static func check(_ bytes: [UInt8]) {
        guard let output else { return }
        var payload = Payload.bytes(Bytes(Data(bytes), origin: "fuzz"))
        for node in nodes {
            let context = StageContext(item: Item(index: 0, source: "fuzz"), nodeID: node.id, cancellation: CancellationToken(),
                                       output: output, logger: Logger(label: "fuzz"))
            guard let next = try? node.stage.run(StageInputs(from: [payload]), context: context) else { return }
            payload = next
        }
    }
}

#if FUZZING
/// The program's entry under the name SwiftPM links it by: libFuzzer takes over from here.
@_cdecl("fuzz_images_main")
public func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    FuzzDriver.run(argc, argv) { data, size in
        ImageFuzz.check(data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? [])
        return 0
    }
}
#else
/// Without the fuzzer: runs every file given (or every file in the folders given) once.
@main struct ImageFuzzReplay {
    static func main() { FuzzReplay.run(ImageFuzz.check) }
}
#endif
