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

    /// Every tag of a file as (group, tag, value), `-n` for numbers, `-a` for duplicates.
    private static func entries(_ file: URL) throws -> [(group: String, tag: String, value: String)] {
        try exiftool(["-a", "-G1", "-s", "-n", file.path]).split(separator: "\n").compactMap { line in
            guard let colon = line.range(of: ": ") else { return nil }
            let parts = line[..<colon.lowerBound].split(separator: " ", omittingEmptySubsequences: true)
            guard parts.count == 2 else { return nil }
            return (String(parts[0]), String(parts[1]), String(line[colon.upperBound...]))
        }
    }

    /// What libvips' savers write whatever the image says: the output's own size, orientation
    /// and resolution, EXIF's fixed version fields, and TIFF's description of its pixel layout.
    static let writtenBySavers: Set<String> = [
        "Orientation", "XResolution", "YResolution", "ResolutionUnit", "YCbCrPositioning", "ExifVersion",
        "ComponentsConfiguration", "FlashpixVersion", "ColorSpace", "ExifImageWidth", "ExifImageHeight",
        "ImageWidth", "ImageHeight", "BitsPerSample", "Compression", "PhotometricInterpretation", "StripOffsets",
        "SamplesPerPixel", "RowsPerStrip", "StripByteCounts", "PlanarConfiguration", "SampleFormat",
    ]
    /// Groups that only a camera or an editor fills.
    static let cameraGroups: Set<String> = ["[IFD1]", "[GPS]", "[Sony]", "[MakerNotes]", "[PrintIM]", "[IPTC]", "[Photoshop]"]

    /// A crop of a real camera photo, in every format: nothing of the camera, the editor or the
    /// uncropped original (its embedded preview) is left; what stays describes the output alone.
    @Test func aCroppedCameraPhotoCarriesNothingOfTheCamera() async throws {
        let harness = try PresetHarness("metadata-camera")
        let input = harness.folder.appendingPathComponent("camera.jpg")
        try FileManager.default.copyItem(at: Fixtures.cameraPhoto, to: input)
        let source = try Self.entries(input)
        for group in ["[IFD1]", "[GPS]", "[Sony]", "[XMP-dc]"] {
            #expect(source.contains { $0.group == group }, "the fixture has no \(group)")
        }
        #expect(source.contains { $0.tag == "ThumbnailImage" } && source.contains { $0.tag == "Comment" })

        var nodes = [#"{"id": "source", "op": "read"}, {"id": "image", "op": "decode"}, {"id": "crop", "op": "vips.smartcrop", "width": 200, "height": 160}"#]
        for (format, ext) in Self.formats.sorted(by: { $0.key < $1.key }) {
            nodes.append(#"{"id": "\#(format)", "op": "encode", "format": "\#(format)", "from": "crop"}, {"id": "save-\#(format)", "op": "write", "path": "out.\#(ext)"}"#)
        }
        let (summary, reports) = try await harness.run(#"{"version": 1, "graph": [\#(nodes.joined(separator: ", "))]}"#, inputs: [input.path])
        #expect(summary.succeeded == 1, "\(reports.compactMap { $0.failure?.message })")

        for (format, ext) in Self.formats {
            let entries = try Self.entries(harness.output("out." + ext))
            let groups = Set(entries.map(\.group))
            #expect(groups.isDisjoint(with: Self.cameraGroups), "\(format): \(groups.intersection(Self.cameraGroups))")
            #expect(!groups.contains { $0.hasPrefix("[XMP") }, "\(format): \(groups)")
            #expect(!entries.contains { $0.tag == "ThumbnailImage" || $0.tag == "Comment" }, "\(format) kept the preview or the comment")
            let exif = entries.filter { ["[IFD0]", "[ExifIFD]"].contains($0.group) }
            let extra = Set(exif.map(\.tag)).subtracting(Self.writtenBySavers)
            #expect(extra.isEmpty, "\(format) kept \(extra.sorted())")
            // 72 dpi (TIFF says it in centimetres, PNG in metres), not the editor's 350.
            let resolution = entries.first { $0.tag == "XResolution" || $0.tag == "PixelsPerUnitX" }.flatMap { Double($0.value) }
            let unit = entries.first { $0.tag == "ResolutionUnit" }?.value
            let dpi = resolution.map { r in unit == "3" ? r * 2.54 : (unit == nil ? r * 0.0254 : r) }
            #expect(dpi.map { abs($0 - 72) < 0.1 } ?? false, "\(format): \(String(describing: resolution)) per \(unit ?? "metre")")
            #expect(groups.contains("[ICC_Profile]"), "\(format) lost its colour profile")
            #expect(exif.first { $0.tag == "ExifImageWidth" }.map { $0.value == "200" } ?? true, "\(format): the size is the source's")
        }
    }

    /// What libvips reads but does not call EXIF (a TIFF's ImageDescription) goes too.
    @Test func aTIFFDescriptionIsNotKept() async throws {
        let harness = try PresetHarness("metadata-tiff")
        let input = harness.folder.appendingPathComponent("scan.tif").path
        try Fixtures.vips(["copy", try harness.sample("Wine.jpg"), input])
        try Self.exiftool(["-q", "-overwrite_original", "-ImageDescription=Jane's passport, page 2", "-Artist=Jane Private", input])
        #expect(try Self.exiftool(["-s", "-ImageDescription", input]).contains("passport"))
        let (summary, _) = try await harness.run(#"{"version": 1, "graph": [{"op": "read"}, {"op": "decode"}, {"op": "thumbnail", "width": 100}, {"op": "encode", "format": "tiff"}, {"op": "write", "path": "out.tif"}]}"#, inputs: [input])
        #expect(summary.succeeded == 1)
        let tags = Set(try Self.entries(harness.output("out.tif")).map(\.tag))
        #expect(!tags.contains("ImageDescription") && !tags.contains("Artist"), "\(tags.sorted())")
    }

    /// `keep` is everything, the original's preview included (the README says so).
    @Test func keepKeepsThePreviewAndTheResolution() async throws {
        let harness = try PresetHarness("metadata-keep-camera")
        let (summary, _) = try await harness.run(#"{"version": 1, "graph": [{"op": "read"}, {"op": "decode"}, {"op": "vips.smartcrop", "width": 200, "height": 160}, {"op": "encode", "format": "jpeg", "metadata": "keep"}, {"op": "write", "path": "out.jpg"}]}"#, inputs: [Fixtures.cameraPhoto.path])
        #expect(summary.succeeded == 1)
        let entries = try Self.entries(harness.output("out.jpg"))
        #expect(entries.contains { $0.tag == "ThumbnailImage" } && entries.contains { $0.group == "[GPS]" })
        #expect(entries.contains { $0.tag == "XResolution" && $0.value == "350" })
    }

    /// libvips' `strip` beside `metadata` (the README's example once had both, and lost the
    /// profile): `metadata` wins, validation says so, and an empty list drops the profile too.
    @Test func libvipsStripDoesNotTakeTheProfileThatMetadataKeeps() async throws {
        let harness = try PresetHarness("metadata-libvips-strip")
        let input = try taggedPhoto(in: harness)
        let preset = #"{"version": 1, "graph": [{"id": "source", "op": "read"}, {"id": "image", "op": "decode"}, {"id": "jpeg", "op": "encode", "format": "jpeg", "strip": true}, {"id": "save", "op": "write", "path": "out.jpg"}]}"#
        let warnings = try harness.load(preset).warnings.map(\.description)
        #expect(warnings.contains { $0.contains("graph[2].strip") && $0.contains("\"metadata\" decides") }, "\(warnings)")
        var (summary, _) = try await harness.run(preset, inputs: [input])
        #expect(summary.succeeded == 1)
        var groups = try Self.tags(harness.output("out.jpg")).groups
        #expect(groups.contains("[ICC_Profile]"), "\(groups)")
        #expect(!groups.contains("[XMP]") && !groups.contains("[IPTC]"), "\(groups)")
        (summary, _) = try await harness.run(preset.replacingOccurrences(of: #""strip": true"#, with: #""metadata": []"#), inputs: [input])
        #expect(summary.succeeded == 1)
        groups = try Self.tags(harness.output("out.jpg")).groups
        #expect(!groups.contains("[ICC_Profile]"), "\(groups)")
    }

    @Test func aWrongMetadataValueIsRefused() throws {
        let harness = try PresetHarness("metadata-wrong")
        let errors = harness.errors(#"{"version": 1, "graph": [{"op": "read"}, {"op": "decode"}, {"op": "encode", "format": "jpeg", "metadata": "gps"}]}"#)
        #expect(errors.contains { $0.contains("graph[2].metadata: expected one of \"strip\", \"keep\" or a set of \"icc\", \"exif\", \"xmp\", \"iptc\"") }, "\(errors)")
    }
}
