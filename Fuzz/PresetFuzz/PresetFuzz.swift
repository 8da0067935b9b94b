import Foundation
import FuzzReplay
import WorkbenchCore
import WorkbenchNet
import WorkbenchVips

/// Fuzz target: arbitrary bytes through the JSON parser and the preset loader (every op the
/// CLI offers, libvips' included), with `--set` overrides and bases to extend (`FuzzInput`).
/// A thrown error is the expected answer to bad input; a crash, a hang or a sanitizer report
/// is a finding.
enum PresetFuzz {
    static let loader = PresetLoader(registry: OpRegistry(CoreOps.all + NetOps.all, providers: [VipsOps.provider]))
    static let folder = FuzzInput.folder("preset-fuzz")

    static func check(_ bytes: [UInt8]) {
        let input = FuzzInput(bytes)
        _ = try? loader.load(json: input.preset, file: folder.appendingPathComponent("fuzz.json").path,
                             baseDirectory: folder.path, overrides: input.overrides)
    }
}

#if FUZZING
/// The program's entry under the name SwiftPM links it by: libFuzzer takes over from here.
@_cdecl("fuzz_presets_main")
public func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    FuzzDriver.run(argc, argv) { data, size in
        PresetFuzz.check(data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? [])
        return 0
    }
}
#else
/// Without the fuzzer: runs every file given (or every file in the folders given) once, for
/// replaying a corpus or a crash as a regression test.
@main struct PresetFuzzReplay {
    static func main() { FuzzReplay.run(PresetFuzz.check) }
}
#endif
