import Foundation
import Testing
@testable import WorkbenchCore

/// The plan step on its own (`GraphPlanner`, step 6), with ops that declare to the planner what
/// the real decode, thumbnail and encode declare: shrink-on-load, a fit box, direct forms.
@Suite struct GraphPlannerTests {
    /// Passes its input on: the planner never runs a stage.
    struct Pass: Stage {
        func run(_ inputs: StageInputs, context: StageContext) throws -> Payload { inputs.first ?? .bytes(Bytes(Data(), origin: "")) }
    }

    static func registry() -> OpRegistry {
        var registry = TestOps.registry()
        registry.register(OpDefinition(OpSpec(name: "plan.decode", summary: "Decodes.", input: .bytes, output: .image, defaultQueue: "cpu",
                                              execution: .cpu, parameters: [], shrinksOnLoad: true)) { _ in Pass() })
        let box: @Sendable (ParameterValues) -> FitBox? = { FitBox(width: $0.int("width"), height: nil) }
        registry.register(OpDefinition(OpSpec(name: "plan.fit", summary: "Fits.", input: .image, output: .image, defaultQueue: "cpu",
                                              execution: .cpu, parameters: [ParameterSpec("width", .int(1...100_000), "Box width.")],
                                              fitBox: box, directForm: { box($0).map { .fit($0) } })) { _ in Pass() })
        registry.register(OpDefinition(OpSpec(name: "plan.crop", summary: "Crops.", input: .image, output: .image, defaultQueue: "cpu",
                                              execution: .cpu, parameters: [])) { _ in Pass() })
        registry.register(OpDefinition(OpSpec(name: "plan.jpeg", summary: "Encodes.", input: .image, output: .bytes, defaultQueue: "cpu",
                                              execution: .cpu, parameters: [ParameterSpec("Q", .int(1...100), default: .int(75), "Quality.")],
                                              directForm: { .jpegEncode(quality: $0.int("Q") ?? 75) })) { _ in Pass() })
        return registry
    }

    /// Steps 1–5 through the loader's own steps, then the planner alone.
    private func linked(_ graph: String) throws -> LinkedGraph {
        let registry = Self.registry()
        let collector = DiagnosticCollector(file: "plan.json")
        let root = try JSONParser.parse(Array(graph.utf8))
        let expanded = GraphExpansion(registry: registry, collector: collector, filters: [:], overrides: [])
            .expand(root, left: [], documentLocation: root.location)
        let drafts = NodeCheck(registry: registry, queues: ["cpu", "net"], collector: collector).check(expanded)
        let linked = GraphLinker(collector: collector).link(drafts)
        #expect(!collector.hasErrors, "\(collector.diagnostics)")
        return try #require(linked)
    }

    private static func srcset(_ widths: [Int], quality: Int = 80) -> String {
        var nodes = [#"{"op": "read"}"#, #"{"id": "image", "op": "plan.decode"}"#]
        for width in widths {
            nodes.append(#"{"id": "w\#(width)", "op": "plan.fit", "width": \#(width), "from": "image"}"#)
            nodes.append(#"{"id": "j\#(width)", "op": "plan.jpeg", "Q": \#(quality), "from": "w\#(width)"}"#)
        }
        return "[" + nodes.joined(separator: ", ") + "]"
    }

    @Test func fitsOfOneImageCascadeFromTheLargestAndTheGraphIsLeftAsWritten() throws {
        let graph = try linked(Self.srcset([480, 1920, 960]))
        let plan = GraphPlanner.plan(graph)
        #expect(plan["w960"].cascadedFrom == "w1920" && plan["w960"].cascadeFactor == 2 && plan["w960"].writtenFrom == "image")
        #expect(plan["w480"].cascadedFrom == "w960")
        #expect(plan["w1920"].cascadedFrom == nil)
        // The decode is read by one fit once the cascade is in place: it shrinks on load, on the
        // direct path, whose encodes all write 4:2:0.
        #expect(plan["image"].readers == 1 && plan["image"].fusedInto == "w1920")
        #expect(plan["image"].direct == DirectChain(encodesSubsampled: true))
        #expect(plan["w1920"].readers == 2)
        // A value: the linked graph still says what was written.
        #expect(graph.nodes.first { $0.id == "w480" }?.from.map(\.id) == ["image"])
        // The binding reads the plan's sources.
        let bound = StageBinding.bind(graph, plan)
        #expect(bound.first { $0.id == "w480" }?.from == ["w960"] && bound.first { $0.id == "w480" }?.plan == plan["w480"])
    }

    @Test func sizesCloserThanTwiceAreEachMadeFromTheFullImage() throws {
        let plan = GraphPlanner.plan(try linked(Self.srcset([1000, 600])))
        #expect(plan["w600"].cascadedFrom == nil && plan["w1000"].cascadedFrom == nil)
        // Two readers: the decode cannot be left to either.
        #expect(plan["image"].readers == 2 && plan["image"].fusedInto == nil)
    }

    @Test func whatKeepsADecodeOffTheDirectPathIsNamed() throws {
        let highQuality = GraphPlanner.plan(try linked(Self.srcset([800], quality: 95)))
        #expect(highQuality["image"].direct == DirectChain(encodesSubsampled: false))
        let cropped = GraphPlanner.plan(try linked("""
            [{"op": "read"}, {"id": "image", "op": "plan.decode"}, {"id": "fit", "op": "plan.fit", "width": 800},
             {"id": "crop", "op": "plan.crop"}, {"id": "jpeg", "op": "plan.jpeg"}]
            """))
        #expect(cropped["image"].fusedInto == "fit" && cropped["image"].direct == nil)
        #expect(cropped["image"].directRefusal?.contains("crop is a plan.crop, which runs on libvips images") == true,
                "\(cropped["image"].directRefusal ?? "nil")")
    }
}
