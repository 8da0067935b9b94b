import CDeflate
import FuzzReplay
import WorkbenchDirect

/// Fuzz target: arbitrary bytes through the PNG decoder. A refusal is an answer; a crash, a hang,
/// a read or write outside a buffer (AddressSanitizer) or pixels whose count disagrees with the
/// image's size is a finding.
enum PNGFuzz {
    static func check(_ bytes: [UInt8]) {
        decode(bytes)
        // The same bytes with every chunk's CRC made right, so that mutations reach past the
        // CRC check into the header, the palette and the image data.
        decode(withCRCsFixed(bytes))
    }

    static func withCRCsFixed(_ bytes: [UInt8]) -> [UInt8] {
        var bytes = bytes, at = 8
        while at + 12 <= bytes.count {
            let length = Int(bytes[at]) << 24 | Int(bytes[at + 1]) << 16 | Int(bytes[at + 2]) << 8 | Int(bytes[at + 3])
            guard length <= bytes.count - at - 12 else { break }
            let crc = bytes.withUnsafeBytes { UInt32(libdeflate_crc32(0, $0.baseAddress! + at + 4, 4 + length)) }
            for k in 0..<4 { bytes[at + 8 + length + k] = UInt8(truncatingIfNeeded: crc >> (24 - 8 * UInt32(k))) }
            at += 12 + length
        }
        return bytes
    }

    static func decode(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { data in
            guard let image = try? PNGDecoder(data, maxPixels: 1 << 22) else { return }
            guard (1...4).contains(image.bands), [1, 2].contains(image.bytesPerSample),
                  image.pixels.count == image.width * image.height * image.bands * image.bytesPerSample else {
                fatalError("a decode of \(image.width)×\(image.height)×\(image.bands)×\(image.bytesPerSample) in \(image.pixels.count) bytes")
            }
        }
    }
}

#if FUZZING
@_cdecl("fuzz_png_main")
public func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    FuzzDriver.run(argc, argv) { data, size in
        PNGFuzz.check(data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? [])
        return 0
    }
}
#else
import Foundation

/// Without the fuzzer: runs every file given once and says what the decoder made of it
/// (`swift run fuzz-png FILE...`).
@main struct PNGFuzzReplay {
    static func main() {
        for path in CommandLine.arguments.dropFirst() {
            guard let data = FileManager.default.contents(atPath: path) else { print("\(path): cannot read"); continue }
            PNGFuzz.check(Array(data))
            let result = data.withUnsafeBytes { bytes in Result { () throws(PNGRefusal) in try PNGDecoder(bytes, maxPixels: 1 << 22) } }
            switch result {
            case .success(let image): print("\(path): \(image.width)×\(image.height)×\(image.bands)")
            case .failure(let refusal): print("\(path): refused (\(refusal))")
            }
        }
    }
}
#endif
