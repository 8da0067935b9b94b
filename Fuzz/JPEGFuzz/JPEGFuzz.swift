import FuzzReplay
import WorkbenchJPEG

/// Fuzz target: arbitrary bytes through the progressive JPEG decoder alone, at 1/2, 1/4 and
/// 1/8 (and low-pass at 1/2 and 1/4), with a memory limit of 64 MiB, and through its structure check. A refusal is an answer; a crash, a hang, a read or write
/// outside a buffer (AddressSanitizer; every buffer comes from malloc) or an image whose size
/// does not agree with itself is a finding.
enum JPEGFuzz {
    static func check(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { data in
            // The structure alone, as a full-size decode checks it before libjpeg reads the file.
            _ = Result { () throws(ProgressiveRefusal) in try ProgressiveJPEG.checkStructure(data) }
            for (shrink, lowPass) in [(2, false), (4, false), (8, false), (2, true), (4, true)] {
                guard let image = try? ProgressiveJPEG.decode(data, shrink: shrink, memoryLimit: 64 << 20, lowPass: lowPass) else { continue }
                let header = JPEGFrameHeader(data)
                guard image.bands == 1 || image.bands == 3, image.buffer.bytes.count == image.width * image.height * image.bands,
                      let header, image.width == (header.width + shrink - 1) / shrink, image.height == (header.height + shrink - 1) / shrink
                else { fatalError("a decode of \(image.width)×\(image.height)×\(image.bands) at 1/\(shrink) that disagrees with its header") }
            }
        }
    }
}

#if FUZZING
@_cdecl("fuzz_jpeg_main")
public func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    FuzzDriver.run(argc, argv) { data, size in
        JPEGFuzz.check(data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? [])
        return 0
    }
}
#else
import Foundation

/// Without the fuzzer: runs every file given once, says for each what the decoder made of it at
/// each scale, and counts the refusals by reason (`swift run fuzz-jpeg PHOTO...`).
@main struct JPEGFuzzReplay {
    static func main() {
        // `--ppm N FILE OUT`: the pixels at 1/N as a PPM (or PGM), to compare with `djpeg -scale 1/N`.
        if CommandLine.arguments.count == 5, CommandLine.arguments[1] == "--ppm", let shrink = Int(CommandLine.arguments[2]),
           let data = FileManager.default.contents(atPath: CommandLine.arguments[3]) {
            do {
                let image = try data.withUnsafeBytes { (bytes) throws(ProgressiveRefusal) in try ProgressiveJPEG.decode(bytes, shrink: shrink) }
                let header = "\(image.bands == 3 ? "P6" : "P5")\n\(image.width) \(image.height)\n255\n"
                if !FileManager.default.createFile(atPath: CommandLine.arguments[4], contents: Data(header.utf8) + Data(image.pixels)) {
                    print("cannot write \(CommandLine.arguments[4])")
                }
            } catch {
                print("refused: \(error)")
            }
            return
        }
        // `--time N FILE…`: decode each file at 1/N ten times and print the median and a checksum of the pixels, for tuning.
        if CommandLine.arguments.count > 2, CommandLine.arguments[1] == "--time", let shrink = Int(CommandLine.arguments[2]) {
            var total = 0.0
            for path in CommandLine.arguments.dropFirst(3) {
                guard let data = FileManager.default.contents(atPath: path) else { continue }
                let times = (0..<10).map { _ -> Double in
                    let start = DispatchTime.now().uptimeNanoseconds
                    _ = data.withUnsafeBytes { try? ProgressiveJPEG.decode($0, shrink: shrink) }
                    return Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6
                }.sorted()
                total += times[5]
                // A checksum of the pixels too: a change made for speed must not change them.
                let pixels = data.withUnsafeBytes { try? ProgressiveJPEG.decode($0, shrink: shrink) }?.pixels ?? []
                let checksum = pixels.reduce(into: UInt64(14_695_981_039_346_656_037)) { $0 = ($0 ^ UInt64($1)) &* 1_099_511_628_211 }
                print("\(path): \(String(format: "%.1f", times[5])) ms, pixels \(String(checksum, radix: 16))")
            }
            print(String(format: "total %.1f ms", total))
            return
        }
        var reasons: [String: Int] = [:]
        var decoded = 0
        for path in CommandLine.arguments.dropFirst() {
            guard let data = FileManager.default.contents(atPath: path) else { print("\(path): cannot read"); continue }
            JPEGFuzz.check(Array(data))
            let outcomes = [2, 4, 8].map { shrink -> String in
                let result = data.withUnsafeBytes { bytes in Result { () throws(ProgressiveRefusal) in try ProgressiveJPEG.decode(bytes, shrink: shrink) } }
                switch result {
                case .success(let image):
                    decoded += 1
                    return "1/\(shrink) \(image.width)×\(image.height)"
                case .failure(let refusal):
                    reasons[refusal.reason.rawValue, default: 0] += 1
                    return "1/\(shrink) refused (\(refusal.reason.rawValue): \(refusal))"
                }
            }
            print("\(path): " + outcomes.joined(separator: "; "))
        }
        print("decoded \(decoded); refused " + (reasons.isEmpty ? "none" : reasons.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")))
    }
}
#endif
