import Foundation

/// Progressive JPEGs made for the decoder's tests by libjpeg-turbo's own tools (`cjpeg`,
/// `jpegtran`: libjpeg-turbo-progs) from a real photo, and what libjpeg makes of them.
public enum ProgressiveFiles {
    /// A scan script with every component's DC in a scan of its own: cjpeg's default interleaves
    /// the DC scans, which samplings of more than 10 blocks an MCU (3×3, 4×4) cannot.
    public static let separateDC = """
        0: 0 0 0 1; 1: 0 0 0 1; 2: 0 0 0 1;
        0: 1 5 0 2; 2: 1 63 0 1; 1: 1 63 0 1; 0: 6 63 0 2; 0: 1 63 2 1;
        0: 0 0 1 0; 1: 0 0 1 0; 2: 0 0 1 0; 2: 1 63 1 0; 1: 1 63 1 0; 0: 1 63 1 0;
        """
    /// Spectral selection alone, many small bands, no successive approximation.
    public static let bands = """
        0 1 2: 0 0 0 0; 0: 1 2 0 0; 0: 3 9 0 0; 0: 10 63 0 0; 1: 1 1 0 0; 1: 2 63 0 0; 2: 1 63 0 0;
        """

    /// The bundled Bridge photo cut to `width`×`height` (resized to cover it, centred), as a PPM file.
    public static func photo(width: Int, height: Int) throws -> URL {
        let url = try Fixtures.processFolder("progressive-photos").appendingPathComponent("\(width)x\(height).ppm")
        if FileManager.default.fileExists(atPath: url.path) { return url }
        // libvips' own command (libvips-tools), into a file of its own, then renamed: whole or
        // not at all, as tests running side by side ask for the same photo (one found the file
        // another had only begun to write: cjpeg's "Empty input file", under load).
        let part = url.deletingLastPathComponent().appendingPathComponent(".\(UUID().uuidString.prefix(8)).ppm")
        try run("/usr/bin/vips", ["thumbnail_image", Fixtures.samples.appendingPathComponent("Bridge.jpg").path, part.path, "\(width)",
                                  "--height", "\(height)", "--crop", "centre", "--size", "force"])
        guard rename(part.path, url.path) == 0 else { throw ToolFailure(text: "cannot name \(url.path): \(String(cString: strerror(errno)))") }
        return url
    }

    /// `cjpeg` with `arguments` on `source`; `scans`: a scan script to write and pass.
    public static func cjpeg(_ source: URL, _ arguments: [String], scans: String? = nil) throws -> Data {
        var arguments = arguments
        if let scans {
            let script = try Fixtures.temporaryDirectory("scans").appendingPathComponent("scans.txt")
            try scans.write(to: script, atomically: true, encoding: .utf8)
            arguments += ["-scans", script.path]
        }
        return try run("/usr/bin/cjpeg", arguments + [source.path])
    }

    /// `jpegtran` with `arguments` on `data`.
    public static func jpegtran(_ data: Data, _ arguments: [String]) throws -> Data {
        let input = FileManager.default.temporaryDirectory.appendingPathComponent("jpegtran-\(UUID().uuidString.prefix(8)).jpg")
        try data.write(to: input)
        defer { try? FileManager.default.removeItem(at: input) }
        return try run("/usr/bin/jpegtran", arguments + [input.path])
    }

    @discardableResult
    public static func run(_ tool: String, _ arguments: [String], allowFailure: Bool = false) throws -> Data {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: tool)
        process.arguments = arguments
        let output = Pipe(), errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        let exited = try process.runSignallingExit()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        let said = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        Process.closeReadEnds(output, errors)
        exited.wait()
        if !allowFailure && process.terminationStatus != 0 {
            throw ToolFailure(text: "\(tool) \(arguments.joined(separator: " ")): \(said)")
        }
        return data
    }

    public struct ToolFailure: Error, CustomStringConvertible {
        let text: String
        public init(text: String) { self.text = text }
        public var description: String { text }
    }

    /// PSNR of `ours` over libjpeg's pixels (ours cropped to libjpeg's size); infinity when equal.
    public static func psnr(_ ours: [UInt8], width: Int, _ theirs: (pixels: [UInt8], width: Int, height: Int, bands: Int)) -> Double {
        var squares = 0.0, count = 0
        for y in 0..<theirs.height {
            for x in 0..<(theirs.width * theirs.bands) {
                let a = Int(ours[y * width * theirs.bands + x]), b = Int(theirs.pixels[y * theirs.width * theirs.bands + x])
                squares += Double((a - b) * (a - b))
                count += 1
            }
        }
        return squares == 0 ? .infinity : 10 * log10(255 * 255 / (squares / Double(count)))
    }
}

extension ProgressiveFiles {
    /// libjpeg's own output at 1/`shrink` (`djpeg -scale 1/N`, its defaults as libvips uses them:
    /// fancy upsampling, the integer IDCT): ceil(size / shrink) as libjpeg makes it, where libvips
    /// keeps floor(size / shrink) and cannot load a side of 0.
    public static func djpeg(_ data: Data, shrink: Int) throws -> (pixels: [UInt8], width: Int, height: Int, bands: Int) {
        let input = FileManager.default.temporaryDirectory.appendingPathComponent("djpeg-\(UUID().uuidString.prefix(8)).jpg")
        try data.write(to: input)
        defer { try? FileManager.default.removeItem(at: input) }
        let output = try run("/usr/bin/djpeg", ["-scale", "1/\(shrink)", "-pnm", input.path])
        // "P6\nW H\n255\n" (or P5 for grey), then the samples.
        var fields: [String] = [], at = 0, current = ""
        while fields.count < 4, at < output.count {
            let byte = output[output.startIndex + at]
            at += 1
            if byte == 0x20 || byte == 0x0A { if !current.isEmpty { fields.append(current); current = "" } } else { current.append(Character(UnicodeScalar(byte))) }
        }
        guard fields.count == 4, let width = Int(fields[1]), let height = Int(fields[2]) else { throw ToolFailure(text: "djpeg wrote no image") }
        let bands = fields[0] == "P5" ? 1 : 3
        return (Array(output.dropFirst(at)), width, height, bands)
    }
}
