import Foundation
import FuzzReplay
import WorkbenchJPEG
import WorkbenchVips

/// Differential fuzz target: whatever the progressive decoder decodes, libjpeg (through
/// libvips, failing on truncation as a `decode` does by default) must decode too, to the same
/// size, and to the same pixels within rounding (PSNR ≥ 30 dB; far more in practice). Images are
/// kept under 4 MiB of working memory, so that an input runs in milliseconds. A file
/// our decoder accepts and libjpeg refuses, or reads otherwise, is a finding.
enum JPEGDifferentialFuzz {
    static let started: Bool = { VipsRuntime.tuneMemory(); return VipsIntrospection.operation("jpegload_buffer") != nil }()

    /// The PSNR of each decode against libjpeg's (infinity: identical), for the replay to print.
    /// Unsynchronised on purpose: libFuzzer and the replay run one input at a time on one thread.
    nonisolated(unsafe) static var measured: [(shrink: Int, psnr: Double)] = []

    static func check(_ bytes: [UInt8], memoryLimit: Int = 4 << 20) {
        guard started else { fatalError("libvips did not start") }
        let data = Data(bytes)
        // libvips keeps floor(size / shrink) and stops on an image with a side of 0; workbench
        // never asks for such a scale (it shrinks no side below a pixel), so neither does this.
        let frame = data.withUnsafeBytes { JPEGFrameHeader($0) }
        for shrink in [2, 4, 8] where frame.map({ $0.width >= shrink && $0.height >= shrink }) ?? true {
            guard let ours = try? data.withUnsafeBytes({ try ProgressiveJPEG.decode($0, shrink: shrink, memoryLimit: memoryLimit) }) else { continue }
            let theirs: (pixels: [UInt8], width: Int, height: Int, bands: Int)
            do {
                theirs = try VipsImage.libjpegPixels(data, shrink: shrink, failOn: "truncated")
            } catch {
                fatalError("decoded at 1/\(shrink), but libjpeg refuses it: \(error)")
            }
            guard ours.bands == theirs.bands, ours.width >= theirs.width, ours.width <= theirs.width + 1,
                  ours.height >= theirs.height, ours.height <= theirs.height + 1 else {
                fatalError("at 1/\(shrink) ours is \(ours.width)×\(ours.height)×\(ours.bands), libjpeg's \(theirs.width)×\(theirs.height)×\(theirs.bands)")
            }
            let cropped = ours.cropped(width: theirs.width, height: theirs.height)
            var squares = 0.0
            for (a, b) in zip(cropped, theirs.pixels) { squares += Double((Int(a) - Int(b)) * (Int(a) - Int(b))) }
            let mean = squares / Double(max(1, theirs.pixels.count))
            measured.append((shrink, mean == 0 ? .infinity : 10 * log10(255 * 255 / mean)))
            if mean > 0, 10 * log10(255 * 255 / mean) < 30 {
                fatalError("at 1/\(shrink) ours differs from libjpeg's: PSNR \(10 * log10(255 * 255 / mean)) dB")
            }
        }
    }
}

#if FUZZING
@_cdecl("fuzz_jpeg_libvips_main")
public func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    FuzzDriver.run(argc, argv) { data, size in
        JPEGDifferentialFuzz.check(data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? [])
        return 0
    }
}
#else
/// Without the fuzzer: runs every file given once.
/// Without the fuzzer: runs every file given once (photos of any size) and prints the PSNR of
/// each scale it decoded against libjpeg's (`swift run fuzz-jpeg-libvips PHOTO...`).
@main struct JPEGDifferentialFuzzReplay {
    static func main() {
        for path in CommandLine.arguments.dropFirst() {
            guard let data = FileManager.default.contents(atPath: path) else { print("\(path): cannot read"); continue }
            JPEGDifferentialFuzz.measured = []
            JPEGDifferentialFuzz.check(Array(data), memoryLimit: ProgressiveJPEG.defaultMemoryLimit)
            let said = JPEGDifferentialFuzz.measured.map { "1/\($0.shrink) \($0.psnr.isFinite ? String(format: "%.1f dB", $0.psnr) : "identical")" }
            print("\(path): " + (said.isEmpty ? "not decoded by ours" : said.joined(separator: ", ")))
        }
    }
}
#endif
