import Foundation
import Testing
import WorkbenchTestSupport

/// Under an address-space limit (`ulimit -v`, a cluster's memory cap) a run ends and says why:
/// too little to start is exit 2 with the limit and what it needs, never a process waiting for
/// a thread for ever; the amount it asks for is enough for the sample preset.
@Suite struct MemoryLimitTests {
    /// Runs `workbench` under `ulimit -v kib`; `timeout` ends a hang (status 124).
    static func run(_ arguments: [String], limit kib: Int) throws -> CLIProcess.Result {
        try CLIProcess.run(arguments, launcher: ["/usr/bin/timeout", "120", "/bin/sh", "-c", "ulimit -v \(kib) && exec \"$0\" \"$@\""])
    }

    @Test func tooLittleAddressSpaceIsRefusedAtOnceAndWhatItAsksForIsEnough() throws {
        let out = try Fixtures.temporaryDirectory("ulimit")
        let preset = Fixtures.presets.appendingPathComponent("sepia-thumbnails.json").path
        // From too small for the program's own libraries upwards, 16 MiB at a time (less than the
        // run's reserve, so some step lands between the libraries and what a run needs).
        var advice: Int?
        for mib in stride(from: 96, through: 1024, by: 16) {
            let result = try Self.run(["run", preset, "--out", out.path, "-q"], limit: mib << 10)
            #expect(result.status != 124, "ulimit -v \(mib << 10): the run hung")
            if result.status == 127 { continue }  // the dynamic loader could not map the libraries
            // Mapped, but a library's constructor could not allocate and its process died before
            // main (GnuTLS, in a window of about 4 MiB just above the libraries): no code of ours ran.
            if result.status != 2, result.stderr.contains("Error in GnuTLS initialization") { continue }
            #expect(result.status == 2, "ulimit -v \(mib << 10): \(result.status) \(result.stderr)")
            #expect(result.stderr.contains("The address-space limit (ulimit -v) is \(mib) MiB; a run with "), "\(result.stderr)")
            let words = result.stderr.components(separatedBy: "(ulimit -v ")
            advice = words.count > 1 ? Int(words[words.count - 1].prefix { $0.isNumber }) : nil
            break
        }
        let needed = try #require(advice)
        let run = try Self.run(["run", preset, "--out", out.path], limit: needed)
        #expect(run.status == 0, "ulimit -v \(needed): \(run.stdout)\(run.stderr)")
        #expect(Fixtures.files(in: out).filter { $0.hasSuffix(".jpg") }.count == Fixtures.samplePhotos.count)
    }

    /// The advice at start knows no plan; once the preset is read, a plan that holds more (the
    /// srcset: full-size decodes, kept 1920 px results, libwebp's buffers) asks for more, before
    /// any work — and at what it asks for, every item is made. The limit equal to the advice
    /// is never refused.
    @Test func thePlanIsCountedAndItsAdviceIsEnough() throws {
        let out = try Fixtures.temporaryDirectory("ulimit-plan")
        let preset = Fixtures.presets.appendingPathComponent("responsive-images.json").path
        func advice(_ text: String) -> Int? {
            let words = text.components(separatedBy: "Raise the limit (ulimit -v ")
            return words.count > 1 ? Int(words[1].prefix { $0.isNumber }) : nil
        }
        let first = try Self.run(["run", preset, "--out", out.path, "-q"], limit: 200 << 10)
        #expect(first.status == 2 && first.stderr.contains("photos of up to 16 megapixels in flight"), "\(first.stderr)")
        let atStart = try #require(advice(first.stderr))
        let second = try Self.run(["run", preset, "--out", out.path, "-q"], limit: atStart)
        #expect(second.status == 2 && second.stderr.contains("for what the plan holds of a photo"), "\(second.stderr)")
        #expect(Fixtures.files(in: out).isEmpty, "nothing is done before the check")
        let planned = try #require(advice(second.stderr))
        #expect(planned > atStart)
        let run = try Self.run(["run", preset, "--out", out.path, "-q"], limit: planned)
        #expect(run.status == 0, "ulimit -v \(planned): \(run.stdout)\(run.stderr)")
        #expect(Fixtures.files(in: out).filter { $0.hasSuffix(".webp") || $0.hasSuffix(".jpeg") }.count == 6 * Fixtures.samplePhotos.count)
    }
}
