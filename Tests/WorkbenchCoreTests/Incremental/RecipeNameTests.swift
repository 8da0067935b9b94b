import Testing
@testable import WorkbenchCore

/// A renamed parameter keeps the name recipes knew it by, so files made before the rename
/// stay up to date (decode's `fail_on` became `failOn`).
@Suite struct RecipeNameTests {
    @Test func aRenamedParameterKeepsItsRecipeName() throws {
        var registry = TestOps.registry()
        registry.register(OpDefinition(OpSpec(
            name: "test.renamed", summary: "A parameter renamed.", input: .bytes, output: .bytes,
            defaultQueue: "cpu", execution: .cpu, parameters: [
                ParameterSpec("newName", .int(0...9), default: .int(3), aliases: ["old_name"], recipeName: "old_name", "Renamed."),
                ParameterSpec("plain", .int(0...9), default: .int(1), "Never renamed."),
            ])) { _ in TestOps.Work(probe: Probe(), label: "r", ms: 0, failFor: nil, failTimes: 0, retryable: false) })
        for spelling in ["newName", "old_name"] {
            let preset = try TestOps.load("""
                {"version": 1, "graph": [{"id": "in", "op": "test.source"}, {"id": "r", "op": "test.renamed", "\(spelling)": 5}]}
                """, registry: registry)
            let recipes = NodeRecipes(nodes: preset.nodes, baseDirectory: "/tmp", versions: [:])
            let text = recipes.text(of: recipes.closure(of: 1), item: Item(index: 0, name: "a", source: "/a"), input: "x")
            #expect(text.contains(";old_name=5") && text.contains(";plain=1") && !text.contains("newName"), "\(text)")
        }
    }

    /// A parameter added later (decode's `maxMemory`) is left out of recipes while it has its
    /// default, so folders made before it existed stay up to date; set otherwise, it counts.
    @Test func anAddedParameterAtItsDefaultLeavesRecipesAsTheyWere() throws {
        var registry = TestOps.registry()
        for (name, added) in [("test.before", false), ("test.after", true)] {
            var parameters = [ParameterSpec("plain", .int(0...9), default: .int(1), "Always there.")]
            if added { parameters.append(ParameterSpec("limit", .int(1...99), default: .int(10), recipeOmitsDefault: true, "Added later.")) }
            registry.register(OpDefinition(OpSpec(
                name: name, summary: "An op.", input: .bytes, output: .bytes, defaultQueue: "cpu", execution: .cpu, parameters: parameters
            )) { _ in TestOps.Work(probe: Probe(), label: "r", ms: 0, failFor: nil, failTimes: 0, retryable: false) })
        }
        func recipe(_ op: String, _ extra: String = "") throws -> String {
            let preset = try TestOps.load("""
                {"version": 1, "graph": [{"id": "in", "op": "test.source"}, {"id": "r", "op": "\(op)", "plain": 2\(extra)}]}
                """, registry: registry)
            let recipes = NodeRecipes(nodes: preset.nodes, baseDirectory: "/tmp", versions: [:])
            return recipes.text(of: recipes.closure(of: 1), item: Item(index: 0, name: "a", source: "/a"), input: "x")
                .replacingOccurrences(of: op, with: "test.op")
        }
        #expect(try recipe("test.after") == recipe("test.before"))
        #expect(try recipe("test.after", #", "limit": 10"#) == recipe("test.before"))
        #expect(try recipe("test.after", #", "limit": 20"#).contains(";limit=20"))
    }
}
