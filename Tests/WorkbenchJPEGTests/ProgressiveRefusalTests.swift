import Foundation
import Testing
import WorkbenchJPEG
import WorkbenchTestSupport
@testable import WorkbenchVips

/// What the decoder refuses, and why: everything libjpeg refuses (then libvips refuses it too),
/// and damage libjpeg decodes with a warning in ways of its own; never an image libjpeg would
/// not make. Each case starts from a sound file and damages one thing.
@Suite struct ProgressiveRefusalTests {
    /// 203×157, chroma at full resolution: at 1/8 every AC scan is checked but not decoded.
    private func sound(_ sampling: String = "1x1") throws -> Data {
        try ProgressiveFiles.cjpeg(try ProgressiveFiles.photo(width: 203, height: 157), ["-progressive", "-quality", "85", "-sample", sampling])
    }

    private func refusal(_ data: Data, shrink: Int) -> ProgressiveRefusal? {
        if case .failure(let refusal) = data.progressive(shrink: shrink) { return refusal }
        return nil
    }

    /// A fuzzed file without the bytes it leaves between a scan's data and the next marker, which
    /// libjpeg warns of and skips ("extraneous bytes before marker"): the same image, so the
    /// damage the fuzzer found it for is what the decoder meets first.
    private func withoutExtraneousBytes(_ data: Data) -> Data {
        var data = data
        while let refusal = refusal(data, shrink: 2), refusal.reason == .extraneousBytes, let start = refusal.offset {
            let bytes = [UInt8](data)
            guard let marker = (start..<(bytes.count - 1)).first(where: { bytes[$0] == 0xFF && bytes[$0 + 1] != 0 && bytes[$0 + 1] != 0xFF }) else { break }
            data = data.prefix(start) + data.dropFirst(marker)
        }
        return data
    }

    private func fuzzed(_ name: String) throws -> Data {
        let found = try Data(contentsOf: Fixtures.packageRoot.appendingPathComponent("Fuzz/Corpus/jpeg/\(name).jpg"))
        // What libjpeg warns of first (djpeg: "7 extraneous bytes before marker 0xc4") is what
        // the decoder leaves the file to it for.
        #expect(refusal(found, shrink: 2)?.reason == .extraneousBytes, "\(name)")
        return withoutExtraneousBytes(found)
    }

    /// libjpeg (through libvips, failing on truncation as `decode` does) refuses it.
    private func libjpegRefuses(_ data: Data, shrink: Int) -> Bool {
        (try? VipsImage.libjpegPixels(data, shrink: shrink)) == nil
    }

    @Test func theSoundFileDecodesAtEveryScale() throws {
        let data = try sound()
        for shrink in [2, 4, 8] { #expect(refusal(data, shrink: shrink) == nil) }
    }

    /// At 1/8 the luma AC scans are not decoded; their headers are checked all the same.
    @Test func skippedScansAreCheckedAsLibjpegChecksThem() throws {
        let data = try sound()
        let scan = try #require(JPEGSegments(data).acScan(of: 1, in: data))
        let (start, end, approximation, count) = scan.scanBand(data)
        try #require(count == 1)
        var cases: [(ProgressiveRefusal.Reason, Data)] = []
        var undefined = data
        undefined[scan.body + 2] = 0x03 // AC table 3, never defined
        cases.append((.undefinedHuffmanTable, undefined))
        var band = data
        band[scan.body + 4] = 64 // Se past 63
        cases.append((.badProgression, band))
        var bits = data
        bits[scan.body + 5] = UInt8(approximation & 0xF0) | 14 // Al 14
        cases.append((.badProgression, bits))
        var stranger = data
        stranger[scan.body + 1] = 9 // a component the frame does not have
        cases.append((.unknownComponent, stranger))
        _ = (start, end)
        for (reason, damaged) in cases {
            for shrink in [2, 8] {
                #expect(refusal(damaged, shrink: shrink)?.reason == reason, "\(reason) at 1/\(shrink)")
                #expect(libjpegRefuses(damaged, shrink: shrink), "libjpeg refuses \(reason) at 1/\(shrink)")
            }
        }
    }

    @Test func tableSelectorsAboveThreeAreUndefined() throws {
        let data = try sound("2x2")
        let first = try #require(JPEGSegments(data).scans.first)
        var damaged = data
        damaged[first.body + 2] = 0x40 // DC table 4 for the first component
        for shrink in [2, 4] {
            #expect(refusal(damaged, shrink: shrink)?.reason == .undefinedHuffmanTable)
            #expect(libjpegRefuses(damaged, shrink: shrink))
        }
    }

    @Test func anUnknownMarkerAfterTheFirstScan() throws {
        let data = try sound()
        let second = try #require(JPEGSegments(data).scans.dropFirst().first)
        // JPG0 (0xF0), which libjpeg does not know, with a length of 4.
        let damaged = data.prefix(second.at) + Data([0xFF, 0xF0, 0x00, 0x04, 0x00, 0x00]) + data.dropFirst(second.at)
        for shrink in [2, 4, 8] {
            #expect(refusal(damaged, shrink: shrink)?.reason == .unknownMarker)
            #expect(libjpegRefuses(damaged, shrink: shrink))
        }
    }

    /// One more code at a table's longest length is all ones, which T.81 forbids.
    @Test func aHuffmanCodeOfAllOnes() throws {
        let data = try sound()
        let scan = try #require(JPEGSegments(data).acScan(of: 1, in: data))
        // The DHT just before the scan defines the table it uses.
        let table = try #require(JPEGSegments(data).segments.last { $0.marker == 0xC4 && $0.at < scan.at })
        let counts = (0..<16).map { Int(data[table.body + 1 + $0]) }
        let longest = try #require(counts.lastIndex { $0 > 0 })
        let symbols = counts.reduce(0, +)
        var bytes = [UInt8](data)
        bytes[table.body + 1 + longest] += 1
        bytes.insert(0x01, at: table.body + 17 + symbols)
        bytes[table.at + 3] += 1 // the segment is a byte longer
        let damaged = Data(bytes)
        for shrink in [2, 8] {
            #expect(refusal(damaged, shrink: shrink)?.reason == .badHuffmanTable, "at 1/\(shrink)")
            #expect(libjpegRefuses(damaged, shrink: shrink))
        }
    }

    @Test func aComponentTwiceInOneScan() throws {
        let data = try sound("2x2")
        let first = try #require(JPEGSegments(data).scans.first)
        try #require(first.scanBand(data).count == 3)
        var damaged = data
        damaged[first.body + 3] = damaged[first.body + 1] // Y, Y, Cr
        #expect(refusal(damaged, shrink: 2)?.reason == .duplicateComponent)
        #expect(refusal(damaged, shrink: 8)?.reason == .duplicateComponent)
    }

    /// Components listed out of the frame's order: libjpeg-turbo refuses [Cb, Y, Cr] ("Invalid
    /// component ID 1 in SOS"); the decoder leaves any order but the frame's to it.
    /// (fuzz-jpeg-libvips found the file below.)
    @Test func componentsOutOfTheFramesOrder() throws {
        let data = try sound("2x2")
        let first = try #require(JPEGSegments(data).scans.first)
        var damaged = data
        damaged[first.body + 1] = data[first.body + 3]
        damaged[first.body + 3] = data[first.body + 1]
        #expect(refusal(damaged, shrink: 2)?.reason == .componentOrder)
        #expect(libjpegRefuses(damaged, shrink: 2))
        let found = try fuzzed("regression-component-order")
        #expect(libjpegRefuses(found, shrink: 4))
        for shrink in [2, 4, 8] { #expect(refusal(found, shrink: shrink)?.reason == .componentOrder) }
    }

    /// Luma 4×4 beside chroma in an interleaved DC scan: 18 blocks an MCU, libjpeg allows 10.
    @Test func anMCUOfMoreThanTenBlocks() throws {
        let data = try sound("2x2")
        let frame = try #require(JPEGSegments(data).segments.first { $0.marker == 0xC2 })
        var damaged = data
        damaged[frame.body + 7] = 0x44
        for shrink in [2, 8] {
            #expect(refusal(damaged, shrink: shrink)?.reason == .mcuTooLarge)
            #expect(libjpegRefuses(damaged, shrink: shrink))
        }
    }

    /// Bytes between a scan's last block and the next marker, or before a restart marker:
    /// libjpeg discards them with a warning ("extraneous bytes before marker") and decodes on;
    /// the decoder leaves such a file to it at every scale.
    @Test func extraneousBytesBeforeAMarker() throws {
        let data = try sound()
        // Right after the first scan's data: before the marker that follows it.
        let first = try #require(JPEGSegments(data).scans.first)
        let next = try #require(JPEGSegments(data).segments.first { $0.at > first.at })
        let padded = data.prefix(next.at) + Data(repeating: 0x55, count: 10) + data.dropFirst(next.at)
        for shrink in [2, 4, 8] {
            let found = refusal(padded, shrink: shrink)
            #expect(found?.reason == .extraneousBytes && found?.offset == next.at, "at 1/\(shrink): \(String(describing: found))")
        }
        // Between two markers, not after a scan's data: libjpeg skips them with the same warning.
        let second = try #require(JPEGSegments(data).scans.dropFirst().first)
        let stray = data.prefix(second.at) + Data(repeating: 0x55, count: 10) + data.dropFirst(second.at)
        #expect(refusal(stray, shrink: 2)?.kind == .damaged)
        // With a restart marker after every MCU row: ten bytes before the first one.
        let restarted = try ProgressiveFiles.cjpeg(try ProgressiveFiles.photo(width: 203, height: 157),
                                                   ["-progressive", "-quality", "85", "-sample", "1x1", "-restart", "1"])
        #expect(refusal(restarted, shrink: 2) == nil)
        let scan = try #require(JPEGSegments(restarted).scans.first)
        let bytes = [UInt8](restarted)
        let rst = try #require((scan.body..<(bytes.count - 1)).first { bytes[$0] == 0xFF && (0xD0...0xD7).contains(bytes[$0 + 1]) })
        let beforeRestart = restarted.prefix(rst) + Data(repeating: 0x55, count: 10) + restarted.dropFirst(rst)
        for shrink in [2, 8] { #expect(refusal(beforeRestart, shrink: shrink)?.kind == .damaged, "at 1/\(shrink)") }
    }

    @Test func cutShortIsRefusedAsLibjpegRefusesIt() throws {
        let data = try sound()
        for fraction in [0.9, 0.5, 0.05] {
            let cut = data.prefix(Int(Double(data.count) * fraction))
            for shrink in [2, 8] {
                #expect(refusal(cut, shrink: shrink)?.reason == .truncated, "cut at \(fraction), 1/\(shrink)")
                #expect(libjpegRefuses(cut, shrink: shrink))
            }
        }
    }

    /// What garbage in a scan's coded data is found as: each of libjpeg's "bad Huffman code"
    /// warnings by its own name (`EntropyFault`), never a refusal of the file's structure.
    static let entropyDamage: Set<ProgressiveRefusal.Reason?> = [.corruptData, .runPastBand, .correctionBit, .dcRange, .missingRestart]

    /// Garbage in the data of a scan whose coefficients this scale needs: libjpeg decodes on
    /// with a warning and guesses; the decoder leaves the file to it.
    @Test func corruptDataInANeededScan() throws {
        let data = try sound()
        let dc = try #require(JPEGSegments(data).scans.first)
        var damaged = data
        for offset in 0..<12 { damaged[dc.body + dc.length - 2 + 20 + offset] = 0x5A }
        #expect(refusal(damaged, shrink: 8)?.reason == .corruptData, "a DC scan's garbage matches no Huffman code")
        let ac = try #require(JPEGSegments(data).acScan(of: 1, in: data))
        var luma = data
        for offset in 0..<40 { luma[ac.body + ac.length - 2 + 10 + offset] = 0x3C }
        #expect(Self.entropyDamage.contains(refusal(luma, shrink: 2)?.reason))
    }

    /// Garbage in a luma AC scan at 1/8, whose coefficients that scale does not keep: libjpeg
    /// warns for each bad code, and libvips gives up after 100 warnings, so the scan is decoded
    /// anyway and the damage found. (fuzz-jpeg-libvips found the file below when such scans were
    /// stepped over: the decoder made an image of it, libvips refused it.)
    @Test func corruptDataInAScanThisScaleKeepsNothingOf() throws {
        let data = try sound()
        let ac = try #require(JPEGSegments(data).acScan(of: 1, in: data))
        var damaged = data
        for offset in 0..<40 { damaged[ac.body + ac.length - 2 + 10 + offset] = 0x3C }
        #expect(Self.entropyDamage.contains(refusal(damaged, shrink: 8)?.reason))
        let found = try Data(contentsOf: Fixtures.packageRoot.appendingPathComponent("Fuzz/Corpus/jpeg/regression-hundred-warnings.jpg"))
        #expect(libjpegRefuses(found, shrink: 8))
        for shrink in [2, 4, 8] {
            let reason = refusal(found, shrink: shrink)?.reason
            #expect(Self.entropyDamage.contains(reason), "\(String(describing: reason))")
        }
    }

    /// A block whose samples lie far outside 0…255: libjpeg's range limit wraps them (modulo
    /// 1024) where a clamp would not, so the decoder leaves the file to libjpeg; at scales where
    /// the block stays in range it decodes as libjpeg does. (fuzz-jpeg-libvips found this file:
    /// 16 dB against libjpeg at 1/2 before.)
    @Test func samplesLibjpegWrapsAreLeftToIt() throws {
        let found = try fuzzed("regression-wrapped-samples")
        #expect(refusal(found, shrink: 2)?.reason == .outOfRange)
        let ours = try found.progressive(shrink: 4).get()
        #expect(ProgressiveFiles.psnr(ours.pixels, width: ours.width, try VipsImage.libjpegPixels(found, shrink: 4)) >= 40)
    }

    /// Coefficients far larger than an 8-bit image's: libjpeg-turbo's SIMD inverse DCT (what
    /// libvips runs) wraps them in 16 bits where its C code and this decoder do not, so the file
    /// is left to libjpeg at the scales whose transform would differ; at 1/8 (libjpeg's 1×1
    /// transform is plain C) the pixels are libjpeg's. (fuzz-jpeg-libvips found this file:
    /// 15 dB against libvips at 1/4 before.)
    @Test func coefficientsLibjpegTurbosSIMDWrapsAreLeftToIt() throws {
        let found = try fuzzed("regression-simd-overflow")
        // At 1/2 a sample also lies where libjpeg's range limit wraps: that is said first.
        #expect([.coefficientRange, .outOfRange].contains(refusal(found, shrink: 2)?.reason))
        #expect(refusal(found, shrink: 4)?.reason == .coefficientRange)
        let ours = try found.progressive(shrink: 8).get()
        #expect(ProgressiveFiles.psnr(ours.pixels, width: ours.width, try VipsImage.libjpegPixels(found, shrink: 8)) >= 40)
    }

    /// A refinement that skips a bit: libjpeg warns and decodes on; left to it.
    @Test func aScanOutOfOrder() throws {
        let data = try sound()
        let refinement = try #require(JPEGSegments(data).scans.last { $0.scanBand(data).start > 0 && $0.scanBand(data).approximation == 0x10 })
        var damaged = data
        damaged[refinement.body + 5] = 0x21 // refine from bit 2 to 1, where the band is at bit 1
        #expect(refusal(damaged, shrink: 2)?.reason == .bogusProgression)
        #expect(refusal(damaged, shrink: 8)?.reason == .bogusProgression)
    }

    /// A script that never brings the low AC frequencies to full precision: libjpeg smooths
    /// those blocks (`do_block_smoothing`), a look of its own; left to it.
    @Test func scansThatNeverFinish() throws {
        let photo = try ProgressiveFiles.photo(width: 203, height: 157)
        let data = try ProgressiveFiles.cjpeg(photo, ["-sample", "2x2"], scans: "0 1 2: 0 0 0 0; 0: 1 63 0 1; 1: 1 63 0 0; 2: 1 63 0 0;")
        #expect(refusal(data, shrink: 4)?.reason == .incompleteScans)
        #expect(refusal(data, shrink: 8)?.reason == .incompleteScans)
    }

    /// 10000×10000 (the default `maxPixels`), three components, over 64 bytes of data: refused
    /// before any coefficient memory is taken — the data cannot hold a bit for each block.
    @Test func aHugeHeaderOverAFewBytesTakesNoMemory() throws {
        let bomb = JPEGBomb.make(width: 10_000, height: 10_000)
        #expect(bomb.count < 240)
        for shrink in [2, 4, 8] {
            let refused = try #require(refusal(bomb, shrink: shrink))
            #expect(refused.reason == .truncated && refused.detail.contains("64 bytes of data for 4687500 blocks"), "\(refused)")
        }
    }

    /// A frame whose decode would pass the memory limit is refused from its header, naming the size.
    @Test func theMemoryLimit() throws {
        let bomb = JPEGBomb.make(width: 65_500, height: 32_784, dataBytes: 600_000)
        let refused = try #require(refusal(bomb, shrink: 2))
        #expect(refused.kind == .memory && refused.detail.contains("over the limit of 1024 MiB"), "\(refused)")
        // libjpeg's own working set for it: every coefficient, 128 bytes a block.
        let header = try #require(bomb.withUnsafeBytes { JPEGFrameHeader($0) })
        #expect(header.libjpegCoefficientBytes == 8188 * 4098 * 128 * 3)
    }
}
