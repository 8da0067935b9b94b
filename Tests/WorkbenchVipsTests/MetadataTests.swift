import Foundation
import Testing
import WorkbenchCore
import WorkbenchTestSupport
@testable import WorkbenchVips

/// `encode` publishes no private metadata unless asked: a photo tagged with a GPS position, a
/// serial number, an XMP creator and IPTC keywords (by exiftool, not by the code under test)
/// comes out of every format with its colour profile only.
@Suite struct MetadataTests {
    static let formats = ["jpeg": "jpg", "webp": "webp", "png": "png", "tiff": "tif", "avif": "avif"]
    static let privateTags = ["GPSLatitude", "SerialNumber", "Make", "Creator", "Keywords"]

    /// Runs exiftool (libimage-exiftool-perl) and returns its output.
    @discardableResult
    private static func exiftool(_ arguments: [String]) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/exiftool")
        process.arguments = arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/exiftool") else {
            throw TestFailure("the metadata tests need exiftool: apt-get install libimage-exiftool-perl")
        }
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return String(decoding: data, as: UTF8.self)
    }

    /// Tag names present in a file (`-s`: short names), by group.
    private static func tags(_ file: URL) throws -> (all: Set<String>, groups: Set<String>) {
        let lines = try exiftool(["-G0", "-s", file.path]).split(separator: "\n")
        var names = Set<String>(), groups = Set<String>()
        for line in lines {
            let parts = line.split(separator: " ", omittingEmptySubsequences: true)
            guard parts.count >= 2 else { continue }
            groups.insert(String(parts[0]))
            names.insert(String(parts[1]))
        }
        return (names, groups)
    }

    private func taggedPhoto(in harness: PresetHarness) throws -> String {
        let path = harness.folder.appendingPathComponent("tagged.jpg").path
        try Fixtures.vips(["icc_transform", try harness.sample("Bridge.jpg"), path, "srgb", "--input-profile", "srgb"])
        try Self.exiftool(["-q", "-overwrite_original", "-GPSLatitude=48.8584", "-GPSLatitudeRef=N", "-SerialNumber=SN12345",
                           "-Make=Canon", "-XMP:Creator=Jane Private", "-IPTC:Keywords=secret", path])
        let before = try Self.tags(URL(fileURLWithPath: path)).all
        #expect(Set(Self.privateTags).isSubset(of: before), "the fixture lacks tags: \(before)")
        return path
    }

    private func encodeAll(_ metadata: String?, harness: PresetHarness, input: String) async throws -> [String: URL] {
        var nodes = [#"{"id": "source", "op": "read"}, {"id": "image", "op": "decode"}, {"id": "small", "op": "thumbnail", "width": 200}"#]
        for (format, ext) in Self.formats.sorted(by: { $0.key < $1.key }) {
            let option = metadata.map { #", "metadata": \#($0)"# } ?? ""
            nodes.append(#"{"id": "\#(format)", "op": "encode", "format": "\#(format)", "from": "small"\#(option)}, {"id": "save-\#(format)", "op": "write", "path": "out.\#(ext)"}"#)
        }
        let (summary, reports) = try await harness.run(#"{"version": 1, "graph": [\#(nodes.joined(separator: ", "))]}"#, inputs: [input])
        #expect(summary.succeeded == 1, "\(reports.compactMap { $0.failure?.message })")
        return Self.formats.mapValues { harness.output("out." + $0) }
    }

    @Test func privateMetadataIsStrippedByDefaultAndTheProfileKept() async throws {
        let harness = try PresetHarness("metadata-strip")
        let files = try await encodeAll(nil, harness: harness, input: try taggedPhoto(in: harness))
        for (format, file) in files {
            let (tags, groups) = try Self.tags(file)
            #expect(tags.isDisjoint(with: Self.privateTags), "\(format): \(tags.intersection(Self.privateTags))")
            #expect(!groups.contains("[XMP]") && !groups.contains("[IPTC]"), "\(format): \(groups)")
            #expect(groups.contains("[ICC_Profile]"), "\(format) lost its colour profile")
        }
    }

    @Test func keepAndAListChooseWhatStays() async throws {
        let harness = try PresetHarness("metadata-keep")
        let input = try taggedPhoto(in: harness)
        for (format, file) in try await encodeAll(#""keep""#, harness: harness, input: input) where format == "jpeg" || format == "webp" {
            let tags = try Self.tags(file).all
            #expect(tags.isSuperset(of: ["GPSLatitude", "SerialNumber", "Make", "Creator"]), "\(format): \(tags)")
        }
        let jpeg = try await encodeAll(#"["exif"]"#, harness: harness, input: input)["jpeg"]
        let (tags, groups) = try Self.tags(try #require(jpeg))
        #expect(tags.contains("Make") && tags.contains("GPSLatitude"))
        #expect(!groups.contains("[ICC_Profile]") && !groups.contains("[XMP]"), "\(groups)")
    }

    @Test func aWrongMetadataValueIsRefused() throws {
        let harness = try PresetHarness("metadata-wrong")
        let errors = harness.errors(#"{"version": 1, "graph": [{"op": "read"}, {"op": "decode"}, {"op": "encode", "format": "jpeg", "metadata": "gps"}]}"#)
        #expect(errors.contains { $0.contains("graph[2].metadata: expected one of \"strip\", \"keep\" or a set of \"icc\", \"exif\", \"xmp\", \"iptc\"") }, "\(errors)")
    }
}
