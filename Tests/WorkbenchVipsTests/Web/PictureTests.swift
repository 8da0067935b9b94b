import Foundation
import Testing
import WorkbenchCore
import WorkbenchTestSupport
@testable import WorkbenchVips

/// `picture` and `pictures`: the markup and the metadata of a srcset, checked against the files
/// the run wrote (read back by libvips), in Chromium, and by a ThumbHash decoder written here.
@Suite struct PictureTests {
    /// Three widths, one of them wider than every sample: those copies come out at the photo's
    /// own width, and the markup lists that width once.
    static let preset = """
        {"version": 1, "graph": [{"id": "source", "op": "read"}, {"id": "image", "op": "decode"},
          {"id": "resized", "op": "thumbnail", "width": "{w}", "foreach": {"w": [160, 320, 4000]}},
          {"id": "encoded", "op": "encode", "format": "{fmt}", "foreach": {"fmt": ["avif", "webp", "jpeg"]}, "avif": {"effort": 9}},
          {"id": "save", "op": "write", "path": "img/{name}-{w}.{fmt}"},
          {"id": "page", "op": "picture", "files": "@save[*]", "sizes": "(min-width: 800px) 50vw, 100vw", "alt": "A photo: {name} & co"},
          {"id": "page-save", "op": "write", "path": "img/{name}.html"},
          {"id": "meta", "op": "picture", "files": "@save[*]", "as": "json", "baseURL": "https://cdn.example/"},
          {"id": "meta-save", "op": "write", "path": "{name}.json"},
          {"id": "index", "op": "pictures", "scope": "run", "in": "@meta-save[*]"},
          {"id": "index-save", "op": "write", "scope": "run", "path": "srcset.json"}]}
        """

    @Test func everyURLNamesAWrittenFileOfTheStatedSize() async throws {
        let harness = try PresetHarness("picture")
        let inputs = [try harness.sample("Bridge.jpg"), try harness.sample("Wine.jpg")]
        let (summary, reports) = try await harness.run(Self.preset.replacingOccurrences(of: "\"img/{name}.html\"", with: "\"{name}.html\""),
                                                       inputs: inputs)
        #expect(summary.succeeded == 2, "\(reports.map(\.failure))")
        let index = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: harness.output("srcset.json"))) as? [String: Any])
        #expect(Set(index.keys) == ["Bridge", "Wine"])
        for name in ["Bridge", "Wine"] {
            let entry = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: harness.output("\(name).json"))) as? [String: Any])
            #expect((index[name] as? [String: Any])?["thumbhash"] as? String == entry["thumbhash"] as? String)
            let files = try #require(entry["files"] as? [[String: Any]])
            let photo = try VipsImage.decode(Data(contentsOf: URL(fileURLWithPath: harness.folder.appendingPathComponent("\(name).jpg").path)), origin: name)
            // Two widths under the photo's, the third its own: 3 a format, each width once.
            #expect(files.count == 9, "\(files)")
            var widths: [String: [Int]] = [:]
            for file in files {
                let url = try #require(file["url"] as? String), format = try #require(file["format"] as? String)
                #expect(url.hasPrefix("https://cdn.example/img/\(name)-"))
                let path = String(url.dropFirst("https://cdn.example/".count))
                let data = try Data(contentsOf: harness.output(path))
                #expect(data.count == file["bytes"] as? Int, "\(path)")
                let written = try VipsImage.decode(data, origin: path)
                #expect((written.width, written.height) == (file["width"] as? Int, file["height"] as? Int), "\(path)")
                widths[format, default: []].append(written.width)
            }
            for format in ["avif", "webp", "jpeg"] { #expect(widths[format] == [160, 320, photo.width], "\(format): \(widths)") }
            #expect((entry["width"] as? Int, entry["height"] as? Int) == (photo.width, photo.height))
            #expect((entry["colour"] as? String)?.count == 7 && (entry["placeholderFrom"] as? String) != nil)

            // The page beside the files: relative URLs, the largest JPEG as <img>, attributes escaped.
            let html = try String(contentsOf: harness.output("\(name).html"), encoding: .utf8)
            #expect(html.contains("<source type=\"image/avif\" srcset=\"img/\(name)-160.avif 160w, img/\(name)-320.avif 320w, img/\(name)-4000.avif \(photo.width)w\" sizes=\"(min-width: 800px) 50vw, 100vw\">"), "\(html)")
            #expect(html.contains("<source type=\"image/webp\""))
            #expect(html.contains("<img src=\"img/\(name)-4000.jpeg\" srcset=\"img/\(name)-160.jpeg 160w, "), "\(html)")
            #expect(html.contains("width=\"\(photo.width)\" height=\"\(photo.height)\" alt=\"A photo: \(name) &amp; co\" loading=\"lazy\" decoding=\"async\""), "\(html)")
            // The page computes no placeholder unless asked: no colour behind the <img>.
            #expect(!html.contains("style="))
            #expect(html.firstRange(of: "<source type=\"image/avif\"")!.lowerBound < html.firstRange(of: "<source type=\"image/webp\"")!.lowerBound)
        }
    }

    /// "@save[*]" in an item's node reads every copy and is not repeated; one "@save" is read
    /// a copy at a time, and the preset is warned; in a fan-in's place "[*]" stays the run's.
    @Test func everyCopyIsReadAtOnceOnlyWhenAskedFor() throws {
        let harness = try PresetHarness("picture-copies")
        let preset = try harness.load(Self.preset)
        #expect(preset.nodes.filter { $0.id.hasPrefix("page") }.map(\.id) == ["page", "page-save"])
        #expect(preset.warnings.isEmpty, "\(preset.warnings)")
        let one = try harness.load(Self.preset.replacingOccurrences(of: #""files": "@save[*]", "as""#, with: #""files": "@save", "as""#))
        #expect(one.nodes.filter { $0.id.hasPrefix("meta-save") }.count == 9)
        #expect(one.warnings.contains { $0.description.contains(#""@save" is one copy at a time of a node repeated 9 times"#) }, "\(one.warnings)")
        let itemIndex = harness.errors(Self.preset.replacingOccurrences(of: #""scope": "run", "in""#, with: #""in""#)).joined()
        #expect(itemIndex.contains(#"a fan-in "@meta-save[*]" collects an item-scope node's output from every item"#), "\(itemIndex)")
    }

    /// Files that are not images (a copy of the input as read) give no markup: the item fails
    /// and says which files it was given.
    @Test func filesThatAreNotImagesFailTheItem() async throws {
        let harness = try PresetHarness("picture-not-images")
        let preset = #"{"version": 1, "graph": [{"id": "source", "op": "read"}, {"id": "copy", "op": "write", "path": "{name}.bin"}, {"id": "page", "op": "picture", "files": "@copy[*]"}, {"id": "page-save", "op": "write", "path": "{name}.html"}]}"#
        let (summary, reports) = try await harness.run(preset, inputs: [try harness.sample("Bridge.jpg")])
        #expect(summary.failed == 1)
        let failure = try #require(reports.first?.failure)
        #expect(failure.node == "page" && failure.message.contains(#"expected written images (the writes after an encode) for "files", not Bridge.bin"#),
                "\(failure)")
    }

    /// Chromium reads the markup and picks the AVIF source of the width `sizes` asks for.
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/chromium")))
    func chromiumPicksTheAVIFSource() async throws {
        let harness = try PresetHarness("picture-browser")
        let (summary, _) = try await harness.run(Self.preset, inputs: [try harness.sample("Bridge.jpg")])
        #expect(summary.succeeded == 1)
        let markup = try String(contentsOf: harness.output("img/Bridge.html"), encoding: .utf8)
        // The page the markup goes in, with a script that says which file the browser chose.
        let page = harness.output("img/page.html")
        try """
            <!doctype html><html><body>\(markup)<script>
            window.addEventListener('load', () => document.body.setAttribute('data-picked', document.querySelector('img').currentSrc));
            </script></body></html>
            """.write(to: page, atomically: true, encoding: .utf8)
        let dom = String(decoding: try ProgressiveFiles.run("/usr/bin/chromium", [
            "--headless", "--no-sandbox", "--disable-gpu", "--window-size=1600,1000", "--virtual-time-budget=5000", "--dump-dom", page.absoluteString,
        ]), as: UTF8.self)
        let picked = try #require(dom.firstMatch(of: /data-picked="([^"]*)"/)?.1, "\(dom)")
        // 50vw of 1600 px: the 800 px slot; the smallest AVIF at least that wide is the photo's own width.
        #expect(picked.hasSuffix("/img/Bridge-4000.avif"), "\(picked)")
    }

    /// A rerun with every file up to date still lists every photo: the markup reads the
    /// recorded files.
    @Test func anUpToDateRerunKeepsTheIndexWhole() async throws {
        let harness = try PresetHarness("picture-rerun")
        let inputs = [try harness.sample("Bridge.jpg"), try harness.sample("Wine.jpg")]
        let preset = try harness.load(Self.preset)
        let output = try OutputRoot(harness.folder.appendingPathComponent("out").path)
        for round in 0..<2 {
            let items = try InputExpansion.expand(inputs, relativeTo: harness.folder.path)
            let manifest = try RunManifest(preset: preset, output: output, versions: ["workbench": "test"])
            let run = PresetRun.start(preset, items: .list(items), output: output, manifest: manifest)
            for await _ in run.events {}
            let summary = await run.result
            #expect(round == 0 ? summary.succeeded == 2 : summary.upToDate == 2, "\(summary)")
            let index = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: harness.output("srcset.json"))) as? [String: Any])
            #expect(Set(index.keys) == ["Bridge", "Wine"], "round \(round)")
        }
    }

    /// ThumbHash: decoded by the decoder below (the format's own arithmetic), the hash of each
    /// photo gives back its colours within a tolerance; an image with transparency keeps it.
    @Test func thumbHashDecodesToThePhotosColours() throws {
        var photos: [(name: String, rgba: [UInt8], width: Int, height: Int, hash: [UInt8])] = []
        for name in ["Bridge.jpg", "Wine.jpg", "sunset.jpg", "aitzgorri.jpg"] {
            let data = try Data(contentsOf: Fixtures.samples.appendingPathComponent(name))
            let (rgba, width, height) = try VipsImage.placeholderPixels(data, fitting: 100, origin: name)
            let hash = try #require(ThumbHash.encode(width: width, height: height, rgba: rgba))
            #expect(hash.count <= 25)
            // The aspect ratio it carries.
            #expect(ThumbHashReference.landscape(hash) == (width > height))
            photos.append((name, rgba, width, height, hash))
        }
        // A placeholder is a blur: compared by the mean colour of each cell of a 4 × 4 grid, its
        // own hash gives the photo back far closer than any other photo's hash does.
        for photo in photos {
            let own = Self.cellDifference(ThumbHashReference.decode(photo.hash, width: photo.width, height: photo.height), photo.rgba,
                                          width: photo.width, height: photo.height)
            #expect(own < 14, "\(photo.name): \(own)")
            for other in photos where other.name != photo.name {
                let theirs = Self.cellDifference(ThumbHashReference.decode(other.hash, width: photo.width, height: photo.height), photo.rgba,
                                                 width: photo.width, height: photo.height)
                #expect(theirs > 2 * own, "\(photo.name) from \(other.name)'s hash: \(theirs), from its own \(own)")
            }
        }
        // Left half clear, right half opaque red.
        var rgba = [UInt8](repeating: 0, count: 40 * 20 * 4)
        for y in 0..<20 { for x in 20..<40 { rgba.replaceSubrange((4 * (y * 40 + x))..<(4 * (y * 40 + x) + 4), with: [220, 20, 30, 255]) } }
        let hash = try #require(ThumbHash.encode(width: 40, height: 20, rgba: rgba))
        let decoded = ThumbHashReference.decode(hash, width: 40, height: 20)
        #expect(decoded[4 * (10 * 40 + 3) + 3] < 60 && decoded[4 * (10 * 40 + 36) + 3] > 200)
        #expect(decoded[4 * (10 * 40 + 36)] > 150 && decoded[4 * (10 * 40 + 36) + 1] < 90)
    }

    /// The mean difference (0–255) of the cells' mean colours over a 4 × 4 grid.
    static func cellDifference(_ a: [UInt8], _ b: [UInt8], width: Int, height: Int) -> Double {
        var total = 0.0
        for cell in 0..<16 {
            let (x0, y0) = (cell % 4 * width / 4, cell / 4 * height / 4), (x1, y1) = ((cell % 4 + 1) * width / 4, (cell / 4 + 1) * height / 4)
            for c in 0..<3 {
                var (p, q) = (0.0, 0.0)
                for y in y0..<y1 { for x in x0..<x1 { p += Double(a[4 * (y * width + x) + c]); q += Double(b[4 * (y * width + x) + c]) } }
                total += abs(p - q) / Double((x1 - x0) * (y1 - y0))
            }
        }
        return total / 48
    }

    /// The dominant colour: the fullest group of near colours, averaged in linear light.
    @Test func theDominantColourIsTheFullestGroupAveragedInLinearLight() {
        // 60% two greens of one group, 40% red: the greens win, averaged as light adds up.
        var rgba: [UInt8] = []
        for i in 0..<100 {
            rgba += i < 30 ? [40, 195, 40, 255] : i < 60 ? [60, 222, 60, 255] : [230, 10, 10, 255]
        }
        let linear = { (a: UInt8, b: UInt8) in DominantColour.encoded((DominantColour.linear[Int(a)] + DominantColour.linear[Int(b)]) / 2) }
        let expected = "#" + [linear(40, 60), linear(195, 222), linear(40, 60)].map { String(format: "%02x", $0) }.joined()
        #expect(DominantColour.of(rgba: rgba, count: 100) == expected)
        // Gamma-space averaging would give a darker green.
        #expect(linear(195, 222) > (195 + 222) / 2)
        // Transparent pixels count only when nothing else does.
        let clear = [UInt8](repeating: 0, count: 400) + [UInt8](repeating: 255, count: 4)
        #expect(DominantColour.of(rgba: clear, count: 101) == "#ffffff")
    }
}

/// A ThumbHash decoder from the format's description: the header's mean colour and scales,
/// then each channel's cosine terms summed back at every pixel.
enum ThumbHashReference {
    static func landscape(_ hash: [UInt8]) -> Bool { (Int(hash[3]) | Int(hash[4]) << 8) >> 15 == 1 }

    static func decode(_ hash: [UInt8], width: Int, height: Int) -> [UInt8] {
        let header24 = Int(hash[0]) | Int(hash[1]) << 8 | Int(hash[2]) << 16
        let header16 = Int(hash[3]) | Int(hash[4]) << 8
        let lightDC = Double(header24 & 63) / 63
        let yellowBlueDC = Double(header24 >> 6 & 63) / 31.5 - 1
        let redGreenDC = Double(header24 >> 12 & 63) / 31.5 - 1
        let lightScale = Double(header24 >> 18 & 31) / 31
        let hasAlpha = header24 >> 23 == 1
        let yellowBlueScale = Double(header16 >> 3 & 63) / 63
        let redGreenScale = Double(header16 >> 9 & 63) / 63
        let isLandscape = header16 >> 15 == 1
        let short = header16 & 7, long = hasAlpha ? 5 : 7
        let lx = max(3, isLandscape ? long : short), ly = max(3, isLandscape ? short : long)
        let alphaDC = hasAlpha ? Double(hash[5] & 15) / 15 : 1
        let alphaScale = Double(hash[5] >> 4) / 15
        var nibble = 0
        let start = hasAlpha ? 6 : 5
        func terms(_ nx: Int, _ ny: Int, _ scale: Double) -> [(cx: Int, cy: Int, value: Double)] {
            var list: [(Int, Int, Double)] = []
            for cy in 0..<ny {
                var cx = cy == 0 ? 1 : 0
                while cx * ny < nx * (ny - cy) {
                    let q = Int(hash[start + nibble / 2]) >> ((nibble & 1) * 4) & 15
                    list.append((cx, cy, (Double(q) / 7.5 - 1) * scale))
                    nibble += 1
                    cx += 1
                }
            }
            return list
        }
        let light = terms(lx, ly, lightScale), yellowBlue = terms(3, 3, yellowBlueScale), redGreen = terms(3, 3, redGreenScale)
        let alpha = hasAlpha ? terms(5, 5, alphaScale) : []
        // The inverse of the encoder's mean over pixels: each AC term counts twice per axis it varies along.
        func value(_ dc: Double, _ list: [(cx: Int, cy: Int, value: Double)], _ x: Int, _ y: Int) -> Double {
            var v = dc
            for term in list {
                let fx = term.cx == 0 ? 1 : 2 * cos(Double.pi / Double(width) * Double(term.cx) * (Double(x) + 0.5))
                let fy = term.cy == 0 ? 1 : 2 * cos(Double.pi / Double(height) * Double(term.cy) * (Double(y) + 0.5))
                v += term.value * fx * fy
            }
            return v
        }
        var rgba = [UInt8](repeating: 0, count: width * height * 4)
        for y in 0..<height {
            for x in 0..<width {
                let l = value(lightDC, light, x, y), p = value(yellowBlueDC, yellowBlue, x, y), q = value(redGreenDC, redGreen, x, y)
                let a = value(alphaDC, alpha, x, y)
                let b = l - 2.0 / 3.0 * p
                let r = (3 * l - b + q) / 2
                let g = r - q
                for (c, v) in [r, g, b, a].enumerated() { rgba[4 * (y * width + x) + c] = UInt8(max(0, min(255, (255 * v).rounded()))) }
            }
        }
        return rgba
    }
}
