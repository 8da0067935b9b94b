import CVips
import Foundation
import Testing
import WorkbenchCore
import WorkbenchDirect
import WorkbenchTestSupport
@testable import WorkbenchVips

/// libjxl reading back what libvips' JPEG XL saver wrote (as a quality search does): the same
/// pixels as libjxl's own `djxl` tool gives, in sRGB, for a photo with libvips' sRGB profile
/// (which makes the decoder leave XYB for linear light unless sRGB is asked for), a grey one,
/// and one with alpha; a damaged file is refused with libjxl's reason.
@Suite struct JXLCodecTests {
    /// A sample photo's thumbnail, 240 wide, as libvips makes it (sRGB profile attached).
    private func thumbnail(_ name: String = "Bridge.jpg") throws -> WorkbenchVips.VipsImage {
        try VipsOperationCall.image("thumbnail", nil, ["filename": .string(Fixtures.samples.appendingPathComponent(name).path),
                                                      "width": .int(240), "export_profile": .string("srgb")])
    }

    /// `djxl`'s decode of `data` as a PNG, read by libvips, as interleaved 8-bit samples.
    private func djxl(_ data: Data) throws -> (width: Int, height: Int, bands: Int, pixels: [UInt8]) {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("jxl-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let input = folder.appendingPathComponent("in.jxl"), output = folder.appendingPathComponent("out.png")
        try data.write(to: input)
        try ProgressiveFiles.run("/usr/bin/djxl", [input.path, output.path, "--bits_per_sample=8", "--color_space=RGB_D65_SRG_Rel_SRG"])
        let image = try VipsImage.decode(Data(contentsOf: output), origin: "djxl")
        let (bytes, width, height, bands) = try image.srgbBytes(origin: "djxl")
        return (width, height, bands, bytes)
    }

    private func difference(_ a: [UInt8], _ b: [UInt8]) -> (mean: Double, max: Int) {
        let d = zip(a, b).map { abs(Int($0) - Int($1)) }
        return (Double(d.reduce(0, +)) / Double(max(1, d.count)), d.max() ?? 0)
    }

    @Test(arguments: ["colour", "grey", "alpha"])
    func decodesAsDjxlDoes(kind: String) throws {
        var image = try thumbnail()
        if kind == "grey" { image = try VipsOperationCall.image("colourspace", image, ["space": .string("b-w")]) }
        if kind == "alpha" { image = try VipsOperationCall.image("bandjoin_const", image, ["c": .doubles([200])]) }
        let (data, _) = try image.encode(try #require(EncodeFormat.named("jxl")), options: ["Q": .int(80)], cancellation: CancellationToken())
        let ours = try JXLCodec.decodeSRGB(data)
        #expect((ours.width, ours.height) == (image.width, image.height))
        #expect(ours.bands == (kind == "grey" ? 1 : kind == "alpha" ? 4 : 3))
        let theirs = try djxl(data)
        // djxl writes grey as grey and keeps alpha; compare the colour bands both have.
        let colours = kind == "grey" ? 1 : 3
        func colourSamples(_ pixels: [UInt8], bands: Int) -> [UInt8] {
            stride(from: 0, to: pixels.count, by: bands).flatMap { pixels[$0..<($0 + min(colours, bands))] }
        }
        let (mean, largest) = difference(colourSamples(ours.pixels, bands: ours.bands), colourSamples(theirs.pixels, bands: theirs.bands))
        #expect(mean < 0.5 && largest <= 3, "\(kind): mean \(mean), largest \(largest)")
    }

    @Test func aDamagedFileIsRefusedWithLibjxlsReason() throws {
        let (data, _) = try thumbnail().encode(try #require(EncodeFormat.named("jxl")), options: [:], cancellation: CancellationToken())
        #expect(throws: DirectError.self) { try JXLCodec.decodeSRGB(data.prefix(data.count / 2)) }
        #expect(throws: DirectError.self) { try JXLCodec.decodeSRGB(Data("not a JPEG XL".utf8)) }
    }
}
