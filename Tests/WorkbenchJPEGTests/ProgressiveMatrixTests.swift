import Foundation
import WorkbenchTestSupport
import Testing
import WorkbenchJPEG
@testable import WorkbenchVips

/// The decoder against libjpeg at the same DCT scale over a generated matrix of progressive
/// files: samplings (1–4 each way, chroma finer than luma, components sampled differently) ×
/// sizes down to 1×1 × scan scripts × restart intervals. Wherever the decoder takes a file its
/// output is libjpeg's to within rounding (PSNR ≥ 40 dB; in practice above 55) and of libjpeg's
/// size, and where libvips can load that scale, of libvips' size too.
@Suite struct ProgressiveMatrixTests {
    static let samplings = ["1x1", "2x1", "1x2", "2x2", "3x1", "1x3", "3x2", "3x3", "4x1", "1x4", "4x2", "2x4", "4x4",
                            "1x1,2x2,2x2", "2x2,1x1,2x2", "2x1,1x2,1x1"]
    static let sizes = [(1, 1), (2, 2), (8, 8), (15, 15), (17, 3), (33, 17), (1000, 2), (1000, 9), (641, 17), (203, 157)]

    /// Decodes `data` at every scale and holds each to libjpeg; returns how many scales it took.
    @discardableResult
    private func agrees(_ data: Data, _ label: String) throws -> Int {
        var taken = 0
        for shrink in [2, 4, 8] {
            let ours: ProgressiveJPEG
            switch data.progressive(shrink: shrink) {
            case .success(let image): ours = image
            case .failure(let refusal):
                Issue.record("\(label) at 1/\(shrink): refused (\(refusal))")
                continue
            }
            taken += 1
            let libjpeg = try ProgressiveFiles.djpeg(data, shrink: shrink)
            #expect(ours.width == libjpeg.width && ours.height == libjpeg.height && ours.bands == libjpeg.bands,
                    "\(label) at 1/\(shrink): \(ours.width)×\(ours.height)×\(ours.bands), libjpeg \(libjpeg.width)×\(libjpeg.height)×\(libjpeg.bands)")
            let psnr = ProgressiveFiles.psnr(ours.pixels, width: ours.width, libjpeg)
            #expect(psnr >= 40, "\(label) at 1/\(shrink): \(psnr) dB against libjpeg")
            // libvips keeps floor(size / shrink) (and cannot load a side of 0).
            let frame = try #require(data.withUnsafeBytes { JPEGFrameHeader($0) })
            if frame.width >= shrink, frame.height >= shrink {
                let theirs = try VipsImage.libjpegPixels(data, shrink: shrink)
                #expect(theirs.width == frame.width / shrink && theirs.height == frame.height / shrink)
                let kept = try data.progressive(shrink: shrink, keeping: (theirs.width, theirs.height)).get()
                #expect(kept.width == theirs.width && kept.height == theirs.height, "\(label) at 1/\(shrink): libvips' size")
                #expect(ProgressiveFiles.psnr(kept.pixels, width: kept.width, theirs) >= 40, "\(label) at 1/\(shrink) against libvips")
            }
        }
        return taken
    }

    @Test(arguments: samplings)
    func everySamplingAtEverySize(_ sampling: String) throws {
        for (width, height) in Self.sizes {
            let photo = try ProgressiveFiles.photo(width: width, height: height)
            let data = try ProgressiveFiles.cjpeg(photo, ["-quality", "85", "-sample", sampling], scans: ProgressiveFiles.separateDC)
            try agrees(data, "\(sampling) \(width)×\(height)")
        }
    }

    @Test(arguments: ["script", "restart", "grey"])
    func scanScriptsAndRestarts(_ variant: String) throws {
        for (width, height) in [(1, 1), (15, 15), (1000, 9), (203, 157)] {
            let photo = try ProgressiveFiles.photo(width: width, height: height)
            var files: [(String, Data)] = []
            switch variant {
            case "script":
                files.append(("cjpeg's default", try ProgressiveFiles.cjpeg(photo, ["-progressive", "-sample", "2x2"])))
                files.append(("spectral bands only", try ProgressiveFiles.cjpeg(photo, ["-sample", "2x1"], scans: ProgressiveFiles.bands)))
                let baseline = try ProgressiveFiles.cjpeg(photo, ["-optimize", "-sample", "1x2"])
                files.append(("jpegtran -progressive", try ProgressiveFiles.jpegtran(baseline, ["-progressive"])))
            case "restart":
                for interval in ["1B", "3B", "1"] {
                    files.append(("restart \(interval)", try ProgressiveFiles.cjpeg(photo, ["-progressive", "-sample", "2x2", "-restart", interval])))
                    files.append(("restart \(interval), DC apart", try ProgressiveFiles.cjpeg(photo, ["-sample", "3x1", "-restart", interval],
                                                                                            scans: ProgressiveFiles.separateDC)))
                }
            default:
                files.append(("grey", try ProgressiveFiles.cjpeg(photo, ["-progressive", "-grayscale"])))
                files.append(("grey, restart", try ProgressiveFiles.cjpeg(photo, ["-progressive", "-grayscale", "-restart", "1B"])))
            }
            for (label, data) in files { try agrees(data, "\(label) \(width)×\(height)") }
        }
    }
}
