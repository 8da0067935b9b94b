import Foundation
import Testing
import WorkbenchTestSupport

/// What a run loads and keeps: libvips' modules only when an operation needs them, reports and
/// traces written as the run goes. Which libraries a process loads is read from the dynamic
/// loader's own account (`LD_DEBUG=files` on standard error).
@Suite struct LeanRunTests {
    private static let modulesFolder = "vips-modules-"

    /// A run of `graph` over the sample photos with the loader's account on standard error.
    private func runTracingLibraries(_ graph: String, extra: [String] = []) throws -> (CLIProcess.Result, URL) {
        let folder = try Fixtures.temporaryDirectory("lean")
        let preset = try Fixtures.writePreset(#"{ "version": 1, "graph": \#(graph) }"#, in: folder)
        let out = folder.appendingPathComponent("out")
        let run = try CLIProcess.run(["run", preset, Fixtures.samples.path, "--out", out.path, "-q"] + extra,
                                     launcher: ["/usr/bin/env", "LD_DEBUG=files"])
        return (run, out)
    }

    /// The libvips modules the loader says it brought in (lines `file=PATH [0]; …` whose PATH
    /// is in the modules' folder; their own libraries name it only as the one needing them).
    private func modules(in stderr: String) -> Set<String> {
        var found = Set<String>()
        for line in stderr.split(separator: "\n") {
            guard let start = line.range(of: "file=") else { continue }
            let path = line[start.upperBound...].prefix { $0 != " " }
            guard path.contains(Self.modulesFolder), let file = path.split(separator: "/").last,
                  let name = file.split(separator: ".").first else { continue }
            found.insert(String(name))
        }
        return found
    }

    @Test func aJPEGRunLoadsNoLibvipsModule() throws {
        let (run, out) = try runTracingLibraries("""
            [ { "id": "s", "op": "read" }, { "id": "d", "op": "decode" }, { "id": "t", "op": "thumbnail", "width": 64 },
              { "id": "e", "op": "encode", "format": "jpeg", "Q": 80 }, { "id": "w", "op": "write", "path": "{name}.jpg" } ]
            """)
        #expect(run.status == 0, "\(run.stderr.suffix(2000))")
        // The sample photos and the logo.
        #expect(Fixtures.files(in: out).count == Fixtures.samplePhotos.count + 1)
        // The account is there (the test would pass vacuously without it).
        #expect(run.stderr.contains("libvips.so"))
        #expect(modules(in: run.stderr).isEmpty)
    }

    @Test func anAVIFEncodeLoadsTheHEIFModuleAloneAndTakesItsOptions() throws {
        // "encoder" is an option of the HEIF saver alone: the preset validates only if the
        // saver's module was there when the preset was read.
        let (run, out) = try runTracingLibraries("""
            [ { "id": "s", "op": "read" }, { "id": "d", "op": "decode" }, { "id": "t", "op": "thumbnail", "width": 64 },
              { "id": "e", "op": "encode", "format": "avif", "encoder": "aom", "effort": 0 },
              { "id": "w", "op": "write", "path": "{name}.avif" } ]
            """)
        #expect(run.status == 0, "\(run.stderr.suffix(2000))")
        #expect(modules(in: run.stderr) == ["vips-heif"])
        let first = try Data(contentsOf: out.appendingPathComponent(Fixtures.files(in: out)[0]))
        #expect(String(decoding: first.prefix(12).suffix(8), as: UTF8.self) == "ftypavif")
    }

    /// libvips' `vips_init` sets VIPSHOME to its bare install prefix in any process that starts
    /// it (pyvips' Python): a workbench started from there inherits a VIPSHOME with no module
    /// folder and still finds the modules; a VIPSHOME whose module folder lacks the module is
    /// named in the refusal, with the module's file.
    @Test func anInheritedVipshomeWithoutModulesStillFindsThemAndAMissingModuleIsNamed() throws {
        let folder = try Fixtures.temporaryDirectory("vipshome")
        let preset = try Fixtures.writePreset("""
            { "version": 1, "graph": [ { "id": "s", "op": "read" }, { "id": "d", "op": "decode" },
              { "id": "t", "op": "thumbnail", "width": 64 }, { "id": "e", "op": "encode", "format": "avif", "effort": 0 },
              { "id": "w", "op": "write", "path": "{name}.avif" } ] }
            """, in: folder)
        let photo = Fixtures.samplePhotos[0].path
        let inherited = try CLIProcess.run(["run", preset, photo, "--out", folder.appendingPathComponent("out").path],
                                           environment: ["VIPSHOME": "/usr"])
        #expect(inherited.status == 0, "\(inherited.stderr)")
        let empty = folder.appendingPathComponent("vips/lib/vips-modules-8.14")
        try FileManager.default.createDirectory(at: empty, withIntermediateDirectories: true)
        let bare = try CLIProcess.run(["run", preset, photo, "--out", folder.appendingPathComponent("out2").path],
                                      environment: ["VIPSHOME": folder.appendingPathComponent("vips").path])
        #expect(bare.status == 2)
        #expect(bare.stderr.contains("HEIF and AVIF come from a libvips module, vips-heif.so in \(empty.path), which is not there"), "\(bare.stderr)")
    }

    @Test func aHEIFOnlyOptionOnAJPEGEncodeIsRefusedByName() throws {
        let folder = try Fixtures.temporaryDirectory("lean")
        let preset = try Fixtures.writePreset("""
            { "version": 1, "graph": [ { "id": "s", "op": "read" }, { "id": "d", "op": "decode" },
              { "id": "e", "op": "encode", "format": "jpeg", "encoder": "aom" }, { "id": "w", "op": "write", "path": "{name}.jpg" } ] }
            """, in: folder)
        let run = try CLIProcess.run(["validate", preset])
        #expect(run.status == 2)
        #expect(run.stderr.contains("encoder"), "\(run.stderr)")
    }

    @Test func listingEveryFilterLoadsEveryModule() throws {
        let run = try CLIProcess.run(["filters"], launcher: ["/usr/bin/env", "LD_DEBUG=files"])
        #expect(run.status == 0)
        let installed = (try? FileManager.default.contentsOfDirectory(atPath: "/usr/lib/x86_64-linux-gnu/vips-modules-8.14")) ?? []
        #expect(!installed.isEmpty)
        #expect(modules(in: run.stderr) == Set(installed.map { String($0.split(separator: ".")[0]) }))
        #expect(run.stdout.contains("vips.heifsave_buffer") && run.stdout.contains("vips.jxlsave_buffer"))
        // One op's page is as complete: encode's HEIF-only options are listed although no
        // preset asked for HEIF.
        let encode = try CLIProcess.run(["filters", "encode"])
        #expect(encode.status == 0)
        #expect(encode.stdout.contains("encoder") && encode.stdout.contains("jpeg, tiff, heif, avif: Q factor, 1…100; png: Quantisation quality, 0…100"),
                "\(encode.stdout)")
        // An option the savers describe differently is described per saver, with each one's range.
        #expect(encode.stdout.contains("png: Quantisation CPU effort, 1…10; webp: Level of CPU effort to reduce file size, 0…6"), "\(encode.stdout)")
    }

    @Test func aReportOrTraceThatCannotBeWrittenStopsTheRunBeforeAnyWork() throws {
        let folder = try Fixtures.temporaryDirectory("lean")
        let out = folder.appendingPathComponent("out")
        let preset = Fixtures.presets.appendingPathComponent("sepia-thumbnails.json").path
        for option in ["--report", "--trace"] {
            let run = try CLIProcess.run(["run", preset, "--out", out.path, option, folder.appendingPathComponent("missing/x.json").path])
            #expect(run.status == 2)
            #expect(run.stderr.contains("missing/x.json") && run.stderr.contains("No such file or directory"), "\(run.stderr)")
            #expect(Fixtures.files(in: out).isEmpty)
        }
    }

    @Test func aStreamedReportListsItemsInInputOrderAndLeavesNoTemporaryFile() throws {
        let folder = try Fixtures.temporaryDirectory("lean")
        let report = folder.appendingPathComponent("report.json"), trace = folder.appendingPathComponent("trace.json")
        let preset = Fixtures.presets.appendingPathComponent("sepia-thumbnails.json").path
        let run = try CLIProcess.run(["run", preset, "--out", folder.appendingPathComponent("out").path, "-q",
                                      "--report", report.path, "--trace", trace.path])
        #expect(run.status == 0, "\(run.stderr)")
        let names = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0 != "out" }.sorted()
        #expect(names == ["report.json", "trace.json"])
        let document = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: report)) as? [String: Any])
        let items = try #require(document["items"] as? [[String: Any]])
        #expect(items.compactMap { $0["index"] as? Int } == Array(0..<Fixtures.samplePhotos.count))
        #expect(try JSONSerialization.jsonObject(with: Data(contentsOf: trace)) is [String: Any])
    }
}
