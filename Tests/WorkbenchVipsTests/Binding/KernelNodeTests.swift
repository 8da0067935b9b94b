import CKernel
import CVips
import Foundation
import Synchronization
import Testing
import WorkbenchCore
import WorkbenchKernels
import WorkbenchTestSupport
@testable import WorkbenchVips

private typealias Image = KernelTestImage

/// The kernel contract as the host runs it: regions on libvips' threads, per-thread scratch,
/// errors, cancellation, formats and band counts, and the C table's checks.
@Suite(.serialized) struct KernelNodeTests {
    /// Counts what the host asks of it; fails or sleeps on request.
    final class Probe: Kernel, @unchecked Sendable {
        // Safe: the counters are atomics; the rest is set in init.
        let scratches = Atomic<Int>(0)
        let regions = Atomic<Int>(0)
        let failure: String?
        let delay: Double
        let marginValue: Int
        init(failure: String? = nil, delay: Double = 0, margin: Int = 0) {
            self.failure = failure
            self.delay = delay
            marginValue = margin
        }
        var name: String { "probe" }
        var margin: Int { marginValue }
        func makeScratch(for image: KernelImage) throws(KernelError) -> AnyObject? {
            scratches.add(1, ordering: .relaxed)
            return NSObject()
        }
        func process(_ region: KernelRegion, image: KernelImage, scratch: AnyObject?) throws(KernelError) {
            guard scratch != nil else { throw KernelError("no scratch") }
            regions.add(1, ordering: .relaxed)
            if let failure { throw KernelError(failure) }
            if delay > 0 { Thread.sleep(forTimeInterval: delay) }
            // Copy the centre of the input: the output equals the input.
            let bytes = image.bands * (image.format == .uint8 ? 1 : image.format == .uint16 ? 2 : 4)
            for y in 0..<region.height {
                let input = UnsafeRawPointer(region.inputRow(y, as: UInt8.self)) + region.margin * bytes
                UnsafeMutableRawPointer(region.outputRow(y, as: UInt8.self)).copyMemory(from: input, byteCount: region.width * bytes)
            }
        }
    }

    private func photo() throws -> Image { try KernelImages.photo("Bridge.jpg", width: 800, height: 600) }

    @Test func regionsRunOnLibvipsThreadsWithScratchPerThread() throws {
        for margin in [0, 3] {
            let probe = Probe(margin: margin)
            let image = try photo()
            let out = try image.applying(probe, cancellation: nil)
            #expect(try KernelImages.largestDifference(out, image) == 0, "margin \(margin): the copy differs")
            let regions = probe.regions.load(ordering: .relaxed), scratches = probe.scratches.load(ordering: .relaxed)
            #expect(regions > 1)
            #expect(scratches >= 1 && scratches <= regions)
        }
    }

    @Test func aKernelErrorFailsTheEvaluationWithItsMessage() throws {
        let out = try photo().applying(Probe(failure: "the halftone screen is missing"), cancellation: nil)
        do {
            _ = try out.encode(EncodeFormat.named("png")!, options: [:], cancellation: CancellationToken())
            Issue.record("the encode succeeded")
        } catch {
            #expect("\(error)".contains("the halftone screen is missing"), "\(error)")
        }
    }

    @Test func cancellingTheNodeStopsItBetweenRegions() throws {
        let probe = Probe(delay: 0.02)
        let token = CancellationToken()
        let big = try KernelImages.photo("Bridge.jpg", width: 2000, height: 1500)
        let out = try big.applying(probe, cancellation: token)
        DispatchQueue.global().asyncAfter(deadline: .now() + 0.2) { token.cancel() }
        let started = Date()
        #expect(throws: VipsError.self) { _ = try out.encode(EncodeFormat.named("png")!, options: [:], cancellation: CancellationToken()) }
        // 2000×1500 in 128-line strips is ≥ 12 regions at 20 ms each on two threads; it stopped early.
        #expect(Date().timeIntervalSince(started) < 5)
        #expect(probe.regions.load(ordering: .relaxed) < 200)
    }

    @Test func otherFormatsAreCastForTheKernelAndBack() throws {
        let image = try photo()
        for format in [VIPS_FORMAT_DOUBLE, VIPS_FORMAT_SHORT, VIPS_FORMAT_FLOAT] {
            let cast = try image.cast(format)
            let inverted = try cast.applying(ToneCurves.invert(), cancellation: nil)
            #expect(inverted.format == format)
            // 255 − v on the 0…255 scale, for every format.
            let expected = try cast.linear(-1, 255).cast(format)
            #expect(try KernelImages.largestDifference(inverted, expected) <= 1, "format \(format)")
        }
    }

    @Test func greyImagesBecomeColourForColourKernels() throws {
        let grey = try photo().colourspace(VIPS_INTERPRETATION_B_W)
        let toned = try grey.applying(ColourMatrixKernel(name: "sepia", matrix: .classicSepia), cancellation: nil)
        #expect(toned.bands == 3)
        let alpha = try grey.joined(with: grey)
        #expect(try alpha.applying(ColourMatrixKernel(name: "sepia", matrix: .classicSepia), cancellation: nil).bands == 4)
    }

    @Test func tooManyBandsAndBadTablesAreRefused() throws {
        let image = try photo()
        let five = try image.joined(with: image.extractBands(from: 0, count: 2))
        #expect(throws: VipsError.self) { try five.applying(ToneCurves.invert(), cancellation: nil) }

        var table = KernelTable.make(ToneCurves.invert())
        table.api_version = 99
        do {
            _ = try image.applying(table: table, name: "invert", colourBands: 0, cancellation: nil)
            Issue.record("a table of another API version was taken")
        } catch {
            #expect("\(error)".contains("another kernel API version"), "\(error)")
        }
        var outside = KernelTable.make(BoxBlur(radius: 2))
        outside.margin = 5000
        #expect(throws: VipsError.self) { try image.applying(table: outside, name: "boxBlur", colourBands: 0, cancellation: nil) }
    }

    @Test func grainIsTheSameOnEveryRunAndDependsOnTheSeed() throws {
        let image = try photo()
        let first = try image.applying(PixelKernel(GrainMap(amount: 0.3, seed: 7)), cancellation: nil).inMemory().image
        let again = try image.applying(PixelKernel(GrainMap(amount: 0.3, seed: 7)), cancellation: nil).inMemory().image
        let other = try image.applying(PixelKernel(GrainMap(amount: 0.3, seed: 8)), cancellation: nil).inMemory().image
        #expect(try KernelImages.largestDifference(first, again) == 0)
        #expect(try KernelImages.meanDifference(first, other) > 5)
        // Each pixel is the input plus the noise at its position, whatever region computed it.
        let map = GrainMap(amount: 0.3, seed: 7)
        for (x, y) in [(0, 0), (799, 599), (401, 17), (133, 512)] {
            func point(_ image: Image) throws -> [Double] {
                try VipsOperationCall.image("extract_area", image, ["left": .int(x), "top": .int(y), "width": .int(1), "height": .int(1)]).bandMeans()
            }
            let before = try point(image), after = try point(first)
            let noise = Double(map.noise(x: x, y: y)) * 0.15 * 255
            for band in 0..<3 {
                #expect(abs(after[band] - min(max(before[band] + noise, 0), 255)) <= 1, "(\(x), \(y)) band \(band)")
            }
        }
    }

    @Test func vignetteKeepsTheCentreAndDarkensCorners() throws {
        let white = try VipsOperationCall.image("black", nil, ["width": .int(300), "height": .int(200), "bands": .int(3)]).linear(1, 255).cast(VIPS_FORMAT_UCHAR)
        let out = try white.applying(PixelKernel(VignetteMap(strength: 1, radius: 0.2, softness: 0.7)), cancellation: nil)
        let centre = try VipsOperationCall.image("extract_area", out, ["left": .int(145), "top": .int(95), "width": .int(10), "height": .int(10)])
        let corner = try VipsOperationCall.image("extract_area", out, ["left": .int(0), "top": .int(0), "width": .int(3), "height": .int(3)])
        #expect(try centre.average() == 255)
        #expect(try corner.average() < 10)
    }
}
