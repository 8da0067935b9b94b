import Foundation
import Testing
import WorkbenchCore
import WorkbenchTestSupport
@testable import WorkbenchVips

/// A running libvips evaluation stops soon after its node is cancelled, instead of running on.
@Suite struct EvaluationCancelTests {
    /// One photo enlarged to 200 MP and blurred hard: encoding it takes many seconds.
    private let slow = #"""
        {"version": 1, "graph": [{"op": "read"}, {"op": "decode"}, {"op": "vips.resize", "scale": 12},
          {"op": "vips.gaussblur", "sigma": 30}, {"id": "encode", "op": "encode", "format": "png"},
          {"op": "write", "path": "{name}.png"}]}
        """#

    @Test func aSlowEncodeEndsSoonAfterCancel() async throws {
        let harness = try PresetHarness("cancel-eval")
        let preset = try harness.load(slow)
        let items = try InputExpansion.expand([try harness.sample("Bridge.jpg")], relativeTo: harness.folder.path)
        let run = PresetRun.start(preset, items: .list(items), output: try OutputRoot(harness.folder.appendingPathComponent("out").path),
                                  options: RunOptions(eventDetail: .nodes))
        // Wait until the encoder has been running for a while, so libvips is mid-evaluation.
        var encodeStarted: ContinuousClock.Instant?
        for await event in run.events {
            if case .node(let node) = event, node.node == "encode", node.state == .running {
                encodeStarted = .now
                break
            }
        }
        #expect(encodeStarted != nil)
        try await Task.sleep(for: .milliseconds(400))
        let cancelled = ContinuousClock.now
        run.cancel()
        let summary = run.waitUntilFinished()
        let latency = ContinuousClock.now - cancelled
        #expect(summary.ending == .interrupted && summary.succeeded == 0)
        // Unkilled, the evaluation would run for seconds; libvips stops at its next tile. The
        // measured latency is in the README (tens of ms); this bound only proves the kill.
        #expect(latency < .milliseconds(500), "cancel → finished took \(latency)")
        #expect(Fixtures.files(in: harness.folder.appendingPathComponent("out")).isEmpty)
    }

    @Test func aCancelledMeasurementStopsToo() throws {
        let token = CancellationToken()
        let big = try VipsOperationCall.image("gaussnoise", nil, ["width": .int(20000), "height": .int(20000)])
        let blurred = try VipsOperationCall.image("gaussblur", big, ["sigma": .double(20)])
        let info = try #require(VipsIntrospection.operations["avg"])
        DispatchQueue.global().asyncAfter(deadline: .now() + 0.3) { token.cancel() }
        let started = ContinuousClock.now
        let input = try #require(info.mainInput)
        #expect {
            try VipsOperationCall.run(info, [(input, .image(blurred))], cancellation: token)
        } throws: { error in
            if case .cancelled? = error as? VipsError { return true } else { return false }
        }
        #expect(ContinuousClock.now - started < .seconds(2))
    }
}
