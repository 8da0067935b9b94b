import Foundation
import Testing
import WorkbenchKernels
import WorkbenchTestSupport
@testable import WorkbenchVips

/// Our SSIMULACRA2 against the reference, the `ssimulacra2` PyPI package, on 122 pairs the
/// `vips` tool makes (`make_ssim2_pairs.sh`): sizes from 8 × 8 to 4 MP, grey and colour, each
/// photo against itself, JPEG, WebP and AVIF at several qualities, and a blur.
@Suite struct SSIMULACRA2Tests {
    /// The pixels of a PNG as libvips reads them: grey or RGB, 8-bit.
    static func pixels(_ path: String) throws -> (bytes: [UInt8], width: Int, height: Int, bands: Int) {
        let image = try VipsImage.decode(Data(contentsOf: URL(fileURLWithPath: path)), origin: path)
        return (try image.memoryBytes(origin: path), image.width, image.height, image.bands)
    }

    static func score(_ original: String, _ distorted: String) throws -> Double {
        let (a, b) = (try pixels(original), try pixels(distorted))
        return try a.bytes.withUnsafeBytes { ra in
            try b.bytes.withUnsafeBytes { rb in
                try SSIMULACRA2.score(original: .init(bytes: ra, width: a.width, height: a.height, bands: a.bands),
                                      candidate: .init(bytes: rb, width: b.width, height: b.height, bands: b.bands))
            }
        }
    }

    @Test func agreesWithTheReferenceWithinHalfAPoint() throws {
        let folder = try Fixtures.temporaryDirectory("ssim2")
        try Fixtures.sh("sh '\(Fixtures.supportFile("make_ssim2_pairs.sh").path)' '\(Fixtures.samples.path)' '\(folder.appendingPathComponent("pairs").path)' 2>/dev/null", in: folder)
        let list = folder.appendingPathComponent("pairs/pairs.tsv")
        let pairs = try String(contentsOf: list, encoding: .utf8).split(separator: "\n").map { $0.split(separator: "\t").map(String.init) }
        #expect(pairs.count >= 100)

        let python = Process(), output = Pipe(), errors = Pipe()
        python.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        python.arguments = ["python3", Fixtures.supportFile("ssimulacra2_scores.py").path, list.path]
        python.standardOutput = output
        python.standardError = errors
        let exited = try python.runSignallingExit()
        let printed = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        let said = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        Process.closeReadEnds(output, errors)
        exited.wait()
        guard python.terminationStatus == 0 else {
            throw TestFailure("the reference did not run (python3 -m pip install ssimulacra2), status \(python.terminationStatus): \(said.suffix(600))")
        }
        let reference = printed.split(separator: "\n").compactMap { Double($0) }
        try #require(reference.count == pairs.count)

        var worst: [String: Double] = [:]
        for (pair, expected) in zip(pairs, reference) {
            let ours = try Self.score(pair[0], pair[1])
            #expect(abs(ours - expected) <= 0.5, "\(pair[2]): ours \(ours), the reference \(expected)")
            if pair[2].hasSuffix("same") { #expect(ours == 100, "\(pair[2])") }
            let group = pair[2].split(separator: " ").prefix(2).joined(separator: " ")
            worst[group] = max(worst[group] ?? 0, abs(ours - expected))
        }
        // For docs/performance.md's agreement table.
        print("SSIMULACRA2 agreement, largest difference by size: " + worst.sorted { $0.key < $1.key }.map { "\($0.key) \(String(format: "%.3f", $0.value))" }.joined(separator: ", "))
    }

    @Test func refusesWhatItCannotScore() throws {
        let grey = [UInt8](repeating: 128, count: 16 * 16)
        try grey.withUnsafeBytes { bytes in
            #expect(throws: SSIMULACRA2.Refusal.self) { try SSIMULACRA2(original: .init(bytes: bytes, width: 7, height: 30, bands: 1)) }
            #expect(throws: SSIMULACRA2.Refusal.self) { try SSIMULACRA2(original: .init(bytes: bytes, width: 16, height: 16, bands: 3)) }
            let original = try SSIMULACRA2(original: .init(bytes: bytes, width: 16, height: 16, bands: 1))
            #expect(throws: SSIMULACRA2.Refusal.self) { try original.score(.init(bytes: bytes, width: 8, height: 32, bands: 1)) }
            #expect(try original.score(.init(bytes: bytes, width: 16, height: 16, bands: 1)) == 100)
        }
    }

    /// An image with alpha is scored on a dark and a light background, the lower score counting:
    /// a difference only in what is transparent costs nothing; one in the opaque part does.
    @Test func alphaIsScoredOnDarkAndLightBackgrounds() throws {
        var a = [UInt8](repeating: 0, count: 32 * 32 * 4)
        for i in 0..<(32 * 32) { a[i * 4] = UInt8(i % 256); a[i * 4 + 1] = 90; a[i * 4 + 2] = 200; a[i * 4 + 3] = i < 512 ? 255 : 0 }
        var hidden = a, shown = a
        for i in 512..<(32 * 32) { hidden[i * 4 + 1] = 0 }
        for i in 0..<512 { shown[i * 4 + 1] = 0 }
        try a.withUnsafeBytes { ra in
            let original = try SSIMULACRA2(original: .init(bytes: ra, width: 32, height: 32, bands: 4))
            #expect(try hidden.withUnsafeBytes { try original.score(.init(bytes: $0, width: 32, height: 32, bands: 4)) } == 100)
            #expect(try shown.withUnsafeBytes { try original.score(.init(bytes: $0, width: 32, height: 32, bands: 4)) } < 60)
        }
    }
}
