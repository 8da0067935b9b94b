import Foundation
import Synchronization
import Testing
import WorkbenchCore
import WorkbenchTestSupport
@testable import WorkbenchVips

/// A running libvips evaluation stops soon after its node is cancelled, instead of running on.
/// The tests block their own thread and cancel from another, so a busy test pool cannot delay
/// the cancel past the end of the work.
@Suite struct EvaluationCancelTests {
    /// Bridge.jpg enlarged to 200 MP and blurred hard: encoding it takes many seconds.
    private func slowImage() throws -> WorkbenchVips.VipsImage {
        let data = try Data(contentsOf: Fixtures.samples.appendingPathComponent("Bridge.jpg"))
        let big = try VipsOperationCall.image("resize", WorkbenchVips.VipsImage.decode(data, origin: "Bridge.jpg"), ["scale": .double(12)])
        return try VipsOperationCall.image("gaussblur", big, ["sigma": .double(30)])
    }

    /// When a cancel was sent.
    private final class Moment: Sendable {
        let value = Mutex<ContinuousClock.Instant?>(nil)
    }

    /// Cancels `token` after `delay` from a Dispatch thread; the moment says when it did.
    private func cancel(_ token: CancellationToken, after delay: Double) -> Moment {
        let moment = Moment()
        DispatchQueue.global().asyncAfter(deadline: .now() + delay) {
            moment.value.withLock { $0 = .now }
            token.cancel()
        }
        return moment
    }

    @Test func aSlowEncodeStopsSoonAfterCancel() throws {
        let token = CancellationToken()
        let image = try slowImage()
        let format = try #require(EncodeFormat.named("png"))
        let cancelledAt = cancel(token, after: 0.4)
        #expect {
            try image.encode(format, options: [:], cancellation: token)
        } throws: { error in
            if case .cancelled? = error as? VipsError { return true } else { return false }
        }
        let latency = ContinuousClock.now - (try #require(cancelledAt.value.withLock { $0 }))
        // Unkilled, the evaluation runs for a minute or more; libvips stops at its next tile (the
        // README has the measured latency, milliseconds). This bound only proves the kill, with
        // room for a loaded machine (a tile of this blur took 4 s on a busy CI VM).
        #expect(latency < .seconds(10), "cancel → stopped took \(latency)")
    }

    @Test func aCancelledMeasurementStopsToo() throws {
        let token = CancellationToken()
        let big = try VipsOperationCall.image("gaussnoise", nil, ["width": .int(20000), "height": .int(20000)])
        let blurred = try VipsOperationCall.image("gaussblur", big, ["sigma": .double(20)])
        let info = try #require(VipsIntrospection.operations["avg"])
        let input = try #require(info.mainInput)
        let cancelledAt = cancel(token, after: 0.3)
        #expect {
            try VipsOperationCall.run(info, [(input, .image(blurred))], cancellation: token)
        } throws: { error in
            if case .cancelled? = error as? VipsError { return true } else { return false }
        }
        let latency = ContinuousClock.now - (try #require(cancelledAt.value.withLock { $0 }))
        // As above: unkilled, this measurement takes over a minute.
        #expect(latency < .seconds(10), "cancel → stopped took \(latency)")
    }

    @Test func ctrlCDuringASlowEncodeLeavesNothing() throws {
        let folder = try Fixtures.temporaryDirectory("cancel-cli")
        try FileManager.default.copyItem(at: Fixtures.samples.appendingPathComponent("Bridge.jpg"), to: folder.appendingPathComponent("Bridge.jpg"))
        let preset = folder.appendingPathComponent("slow.json")
        try #"""
            {"version": 1, "graph": [{"op": "read"}, {"op": "decode"}, {"op": "vips.resize", "scale": 12},
              {"op": "vips.gaussblur", "sigma": 30}, {"op": "encode", "format": "png"}, {"op": "write", "path": "{name}.png"}]}
            """#.write(to: preset, atomically: true, encoding: .utf8)
        let out = folder.appendingPathComponent("out")
        let process = try CLIProcess(["run", preset.path, folder.appendingPathComponent("Bridge.jpg").path, "--out", out.path])
        Thread.sleep(forTimeInterval: 1)
        let interrupted = ContinuousClock.now
        process.interrupt()
        let result = process.wait()
        #expect(result.status == 130)
        #expect(ContinuousClock.now - interrupted < .seconds(2))
        #expect(Fixtures.files(in: out).isEmpty)
    }
}
