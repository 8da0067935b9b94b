/// The files `workbench plugin new NAME` writes: a package whose library is the plugin, one
/// working kernel (point, or area with `--area`) with two parameters, its manifest, a unit test
/// and a README.
struct PluginTemplate {
    /// The Swift name (`Glow`): package, module and library (`libGlow.so`).
    let module: String
    /// The plugin's name in presets (`glow`): filters are `glow.<filter>`.
    var plugin: String { module.lowercased() }
    let area: Bool

    var filter: String { area ? "soften" : "tone" }
    var kernelType: String { area ? "Soften" : "Tone" }

    var files: [(path: String, text: String)] {
        [("Package.swift", packageSwift), ("plugin.json", manifest), ("Sources/\(module)/\(kernelType).swift", area ? softenKernel : toneKernel),
         ("Sources/\(module)/Export.swift", export), ("Tests/\(module)Tests/\(kernelType)Tests.swift", area ? softenTest : toneTest),
         ("README.md", readme), (".gitignore", ".build/\n.swiftpm/\n")]
    }

    var packageSwift: String { """
        // swift-tools-version:6.0
        import PackageDescription

        // A FilterWorkbench plugin: the dynamic library lib\(module).so plus plugin.json.
        // Kit/ is the plugin kit of the workbench that made this folder (its C header is the
        // contract between workbench and plugin); `workbench plugin build .` builds and installs.
        let package = Package(
            name: "\(module)",
            products: [
                .library(name: "\(module)", type: .dynamic, targets: ["\(module)"]),
            ],
            dependencies: [
                .package(path: "Kit"),
            ],
            targets: [
                .target(name: "\(module)", dependencies: [.product(name: "WorkbenchKit", package: "Kit")]),
                .testTarget(name: "\(module)Tests", dependencies: ["\(module)"]),
            ]
        )

        """ }

    var manifest: String {
        let parameters = area ? """
                    { "name": "radius", "type": "integer", "min": 1, "max": 32, "default": 3,
                      "summary": "How far each pixel reaches, in pixels." },
                    { "name": "amount", "type": "number", "min": 0, "max": 1, "default": 0.5,
                      "summary": "0 keeps the image, 1 is the full blur." }
            """ : """
                    { "name": "lift", "type": "number", "min": 0, "max": 1, "default": 0.1,
                      "summary": "How far black rises: 0 keeps it, 1 turns everything white." },
                    { "name": "warmth", "type": "number", "min": -1, "max": 1, "default": 0.3,
                      "summary": "Above 0 warmer (more red, less blue), below 0 cooler." }
            """
        return """
            {
              "name": "\(plugin)",
              "version": "0.1.0",
              "api": 1,
              "library": "lib\(module).so",
              "filters": [
                {
                  "name": "\(filter)",
                  "summary": "\(area ? "Softens the image: each pixel blended with the average around it." : "Lifts the shadows and warms the colours.")",
                  "parameters": [
            \(parameters)
                  ]
                }
              ]
            }

            """
    }

    var export: String { """
        import WorkbenchKit

        /// The one symbol the workbench looks for: the plugin's table of filters. Every filter
        /// here must be declared in plugin.json, with its parameters, and the other way round.
        @_cdecl("workbench_plugin")
        public func workbenchPlugin() -> UnsafeRawPointer {
            Plugin.export(name: "\(plugin)", filters: [
                \(area ? "Plugin.Filter(\"soften\") { p in Soften(radius: try p.integer(\"radius\"), amount: Float(try p.number(\"amount\"))) }"
                       : "Plugin.Filter(\"tone\") { p in Tone(lift: Float(try p.number(\"lift\")), warmth: Float(try p.number(\"warmth\"))) }"),
            ])
        }

        """ }

    var toneKernel: String { """
        import WorkbenchKit

        /// Lifts the shadows and warms the colours: a point kernel (each output pixel from the
        /// input pixel at the same place), for 8-bit, 16-bit and float images; alpha is copied.
        struct Tone: SampleKernel {
            /// 0…1: where black ends up.
            let lift: Float
            /// -1…1: red up and blue down by up to 20 % (or the other way round).
            let warmth: Float

            var name: String { "\(plugin).tone" }

            /// Called once per region with the image's sample type (UInt8, UInt16 or Float).
            func process<S: KernelSample>(_ region: KernelRegion, _ image: KernelImage, as: S.Type) {
                let bands = image.bands, colour = image.colourBands, white = image.max
                for y in 0..<region.height {
                    let input = region.inputRow(y, as: S.self), output = region.outputRow(y, as: S.self)
                    for x in 0..<region.width {
                        for b in 0..<bands {
                            let i = x * bands + b
                            guard b < colour else { output[i] = input[i]; continue }
                            var v = lift + (1 - lift) * input[i].floatValue / white
                            if colour >= 3 && b != 1 { v *= 1 + (b == 0 ? warmth : -warmth) * 0.2 }
                            output[i] = S(clamping: v * white)
                        }
                    }
                }
            }
        }

        """ }

    var softenKernel: String { """
        import WorkbenchKit

        /// Blends each pixel with the average of the square around it: an area kernel. The host
        /// hands it `margin` extra pixels on every side of each region (edges repeated).
        struct Soften: SampleKernel {
            let radius: Int
            /// 0…1: how much of the average replaces the pixel.
            let amount: Float

            var name: String { "\(plugin).soften" }
            var margin: Int { radius }

            /// Called once per region with the image's sample type (UInt8, UInt16 or Float).
            func process<S: KernelSample>(_ region: KernelRegion, _ image: KernelImage, as: S.Type) {
                let bands = image.bands, side = 2 * radius + 1
                let weight = 1 / Float(side * side)
                for y in 0..<region.height {
                    let output = region.outputRow(y, as: S.self)
                    for x in 0..<region.width {
                        for b in 0..<bands {
                            var sum: Float = 0
                            for dy in -radius...radius {
                                let row = region.inputRow(y + dy, as: S.self)
                                // Input column of output x is x + margin.
                                for dx in 0..<side { sum += row[(x + dx) * bands + b].floatValue }
                            }
                            let centre = region.inputRow(y, as: S.self)[(x + radius) * bands + b].floatValue
                            output[x * bands + b] = S(clamping: centre + (sum * weight - centre) * amount)
                        }
                    }
                }
            }
        }

        """ }

    var toneTest: String { """
        import Testing
        import WorkbenchKit
        @testable import \(module)

        @Suite struct ToneTests {
            /// Runs the kernel on a few 8-bit RGB pixels in memory, as the host would.
            func run(_ kernel: Tone, _ pixels: [UInt8]) throws -> [UInt8] {
                let width = pixels.count / 3
                let image = KernelImage(width: width, height: 1, bands: 3, hasAlpha: false, format: .uint8, max: 255)
                var output = [UInt8](repeating: 0, count: pixels.count)
                try pixels.withUnsafeBytes { input in
                    try output.withUnsafeMutableBytes { out in
                        let region = KernelRegion(left: 0, top: 0, width: width, height: 1, margin: 0, input: input.baseAddress!,
                                                  inputStride: pixels.count, output: out.baseAddress!, outputStride: pixels.count)
                        try kernel.process(region, image: image, scratch: nil)
                    }
                }
                return output
            }

            @Test func liftsBlackAndKeepsWhite() throws {
                let out = try run(Tone(lift: 0.2, warmth: 0), [0, 0, 0, 255, 255, 255])
                #expect(out == [51, 51, 51, 255, 255, 255])
            }

            @Test func warmthMovesRedAndBlueApart() throws {
                let out = try run(Tone(lift: 0, warmth: 0.5), [100, 100, 100])
                #expect(out[0] > 100 && out[1] == 100 && out[2] < 100)
            }
        }

        """ }

    var softenTest: String { """
        import Testing
        import WorkbenchKit
        @testable import \(module)

        @Suite struct SoftenTests {
            /// Runs the kernel on a small grey image whose edges are repeated by hand, as the host
            /// would repeat them.
            @Test func averagesAroundEachPixel() throws {
                let kernel = Soften(radius: 1, amount: 1)
                // 3×3 output; input is 5×5 (one pixel of margin): a single bright pixel in the middle.
                var input = [UInt8](repeating: 0, count: 25)
                input[12] = 90
                let image = KernelImage(width: 3, height: 3, bands: 1, hasAlpha: false, format: .uint8, max: 255)
                var output = [UInt8](repeating: 0, count: 9)
                try input.withUnsafeBytes { source in
                    try output.withUnsafeMutableBytes { target in
                        let region = KernelRegion(left: 0, top: 0, width: 3, height: 3, margin: 1, input: source.baseAddress!,
                                                  inputStride: 5, output: target.baseAddress!, outputStride: 3)
                        try kernel.process(region, image: image, scratch: nil)
                    }
                }
                #expect(output == [UInt8](repeating: 10, count: 9))
            }
        }

        """ }

    var readme: String { """
        # \(module): a FilterWorkbench plugin

        Its filter `\(plugin).\(filter)` is declared in `plugin.json` and computed by the kernel in
        `Sources/\(module)/\(kernelType).swift`.

        ```sh
        swift test                    # the kernel's unit test
        workbench plugin build .      # release build, installed into ~/.local/share/workbench/plugins
        workbench filters \(plugin).\(filter)
        ```

        In a preset: `{ "id": "look", "op": "\(plugin).\(filter)" }`. By default the kernel runs in a
        helper process (a crash fails only the items in flight); `"isolation": "none"` on the node,
        or `--trust-plugin \(plugin)`, runs it inside the workbench at full speed.

        `Kit/` is the plugin kit of the workbench that made this folder; a plugin built against
        another workbench's kit (another plugin API version) is refused with a message saying so.

        """ }
}
