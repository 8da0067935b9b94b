import Testing
@testable import WorkbenchCore

/// Numbers in a preset: an integer that does not fit where it goes is a validation error with
/// its place and the range, never a trap; JSON integers past ±2^53 (read rounded) are never
/// taken for the number the file says.
@Suite struct NumberTests {
    @Test func aHugeIntegerInForeachIsRefusedAtItsPlace() {
        let diagnostics = TestOps.diagnostics("""
            {"version": 1, "graph": [{"op": "read"},
              {"id": "w", "op": "test.work", "ms": 1, "label": "w{w}", "foreach": {"w": [480, 9223372036854775807, 1920]}},
              {"op": "write", "path": "{name}-{w}"}]}
            """)
        #expect(diagnostics.contains { $0.hasPrefix("test.json:2:83: error: graph[1].foreach.w[1]: integers are exact only within ±9007199254740992") },
                "\(diagnostics)")
    }

    @Test func integerParametersPastTheirRangeOrPastExactnessSayWhich() {
        let cases: [(String, String)] = [
            ("9223372036854775807", "graph[1].ms: expected an integer 0…60000, found an integer past ±2^53, which a JSON number does not hold exactly"),
            ("9007199254740993", "graph[1].ms: expected an integer 0…60000, found an integer past ±2^53"),
            ("-1e300", "graph[1].ms: expected an integer 0…60000, found -1e+300"),
            ("1e15", "graph[1].ms: expected an integer 0…60000, found 1000000000000000.0"),
            ("60001", "graph[1].ms: expected an integer 0…60000, found 60001"),
        ]
        for (value, message) in cases {
            let diagnostics = TestOps.diagnostics(#"{"version": 1, "graph": [{"op": "read"}, {"op": "test.work", "ms": \#(value)}, {"op": "write", "path": "x"}]}"#)
            #expect(diagnostics.count == 1 && diagnostics[0].contains(message), "\(value): \(diagnostics)")
        }
        let retries = TestOps.diagnostics(#"{"version": 1, "graph": [{"op": "read", "retries": 18446744073709551616}, {"op": "write", "path": "x"}]}"#)
        #expect(retries.contains { $0.contains("graph[0].retries: expected an integer 0…20, found an integer past ±2^53") }, "\(retries)")
        // Written as a whole number with a fraction or an exponent, still an integer.
        #expect(throws: Never.self) { try TestOps.load(#"{"version": 1, "graph": [{"op": "read"}, {"op": "test.work", "ms": 2e3}, {"op": "write", "path": "x"}]}"#) }
    }

    @Test func aNumberPastWhatADoubleHoldsIsAJSONErrorWithItsPlace() {
        let diagnostics = TestOps.diagnostics(#"{"version": 1, "graph": [{"op": "read", "timeout": -1e999}]}"#)
        #expect(diagnostics == [#"test.json:1:52: error: invalid JSON: number out of range: -1e999 is beyond what a JSON number holds here (±1.8e308)"#],
                "\(diagnostics)")
    }

    /// A filter's declared bounds and the values it puts into text.
    @Test func filterBoundsAndHugeValuesInTextAreSafe() throws {
        let bounds = TestOps.diagnostics("""
            {"version": 1, "filters": {"f": {"parameters": [{"name": "n", "type": "integer", "min": -1e300, "max": 1e300, "default": 1, "summary": "N."}],
                                             "graph": [{"op": "test.work", "ms": 0}]}},
             "graph": [{"op": "read"}, {"op": "f", "n": 1}, {"op": "write", "path": "x"}]}
            """)
        #expect(bounds.contains { $0.contains("filters.f.parameters[0].min: the \"min\" of an integer parameter must be a whole number within ±2^53, not -1e+300") }, "\(bounds)")
        #expect(bounds.contains { $0.contains("parameters[0].max: the \"max\" of an integer parameter") }, "\(bounds)")

        let preset = try TestOps.load("""
            {"version": 1, "filters": {"f": {"parameters": [{"name": "n", "type": "number", "min": 0, "max": 1e308, "default": 1, "summary": "N."}],
                                             "graph": [{"op": "test.work", "ms": 0, "label": "n={n}"}]}},
             "graph": [{"op": "read"}, {"id": "t", "op": "f", "n": 9223372036854775807}, {"op": "write", "path": "x"}]}
            """)
        #expect(preset.nodes.first { $0.id == "t.test.work" }?.parameters.string("label") == "n=9.223372036854776e+18")
    }
}
