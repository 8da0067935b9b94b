import Foundation
import Testing
@testable import WorkbenchCore

@Suite struct PresetLoaderTests {
    @Test func linearChainGetsDefaultEdgesAndQueues() throws {
        let preset = try TestOps.load("""
            {"version": 1, "inputs": ["a.jpg", "file:///example/b.png"],
             "queues": {"cpu": {"concurrency": 3, "qos": "utility"}, "extra": {"concurrency": "auto"}},
             "graph": [{"op": "read"}, {"id": "w", "op": "test.work", "ms": 1, "queue": "extra"},
                       {"op": "write", "path": "{name}.out"}]}
            """)
        #expect(preset.nodes.map(\.id) == ["read", "w", "write"])
        #expect(preset.nodes.map(\.from) == [[], ["read"], ["w"]])
        #expect(preset.nodes.map(\.queue) == ["disk", "extra", "disk"])
        #expect(preset.queues.first { $0.name == "cpu" } == QueueSpec(name: "cpu", concurrency: .fixed(3), qos: .utility))
        #expect(preset.queues.first { $0.name == "extra" }?.concurrency == .auto)
        #expect(preset.inputs == .list(["a.jpg", "file:///example/b.png"]))
        #expect(preset.nodes[1].parameters.int("ms") == 1)
    }

    /// A file a parameter names without item variables must be in the preset's folder when the
    /// preset is checked: found by `validate`, not by every item failing.
    @Test func aFileThePresetNamesIsLookedForWhenItIsChecked() throws {
        let folder = NSTemporaryDirectory() + "workbench-named-files-\(getpid())"
        try FileManager.default.createDirectory(atPath: folder + "/sub", withIntermediateDirectories: true)
        _ = FileManager.default.createFile(atPath: folder + "/logo.png", contents: Data([1]))
        func diagnostics(_ path: String) -> [String] {
            do {
                _ = try PresetLoader(registry: TestOps.registry()).load(json: Array("""
                    {"version": 1, "inputs": ["a.jpg"], "graph": [{"op": "read", "scope": "run", "path": "\(path)"}]}
                    """.utf8), file: "test.json", baseDirectory: folder)
                return []
            } catch {
                if case .invalidPreset(let list) = error { return list.map(\.description) }
                return ["\(error)"]
            }
        }
        #expect(diagnostics("logo.png") == [])
        #expect(diagnostics("{name}.png") == [])  // per item: read when the item runs
        #expect(diagnostics("nothere.png") == [#"test.json:1:86: error: graph[0].path: "nothere.png" is not in the preset's folder "\#(folder)" (No such file or directory); put the file there or correct its name"#])
        #expect(diagnostics("sub") == [#"test.json:1:86: error: graph[0].path: "sub" in the preset's folder is not a file"#])
    }

    @Test func aValueListedTwiceInForeachIsNamed() {
        #expect(TestOps.diagnostics("""
            {"version": 1, "inputs": ["a.jpg"], "graph": [{"op": "read"},
             {"id": "w", "op": "test.work", "ms": "{w}", "foreach": {"w": [480, 480, 1920]}}, {"op": "write", "path": "{name}-{w}"}]}
            """) == [#"test.json:2:69: error: graph[1].foreach.w[1]: w lists 480 twice (at [0] and [1]); each value makes one copy of the node and its files, so list it once"#])
    }

    @Test func everyErrorIsReportedWithPathAndPosition() {
        let text = """
            {
              "version": 1,
              "inputz": [],
              "queues": {"cpu": {"concurrency": 0, "qos": "fast"}},
              "graph": [
                {"op": "read"},
                {"op": "test.wrok"},
                {"op": "test.work", "mss": 5, "ms": "x"},
                {"op": "write", "path": "../{nam}.jpg", "queue": "gpu"}
              ]
            }
            """
        #expect(TestOps.diagnostics(text) == [
            #"test.json:3:3: error: inputz: unknown key "inputz" in the preset; did you mean "inputs"? (allowed: "$schema", "version", "name", "description", "extends", "include", "inputs", "output", "queues", "filters", "graph", "s3")"#,
            #"test.json:4:37: error: queues.cpu.concurrency: expected an integer 1…1024 or "auto", found 0"#,
            #"test.json:4:47: error: queues.cpu.qos: expected one of "userInteractive", "userInitiated", "utility", "background", found "fast""#,
            #"test.json:7:12: error: graph[1].op: unknown op "test.wrok"; did you mean "test.work"? (known ops: read, test.collect, test.fail, test.image, test.io, test.source, test.warn, test.work, write)"#,
            #"test.json:8:25: error: graph[2].mss: unknown parameter "mss" for op "test.work"; did you mean "ms"? (parameters: "ms", "failFor", "label", "failTimes", "retryable", "other")"#,
            #"test.json:8:41: error: graph[2].ms: expected an integer 0…60000, found "x""#,
            #"test.json:9:54: error: graph[3].queue: unknown queue "gpu"; did you mean "cpu"? (defined: "net", "cpu", "disk")"#,
            #"test.json:9:29: error: graph[3].path: unknown variable {nam} in "../{nam}.jpg"; did you mean "name"? (known: {name}, {stem}, {ext}, {index}, {hash}, {dir}, and the names a "foreach" on this node or upstream of it repeats over)"#,
        ])
    }

    @Test func syntaxErrorsPointAtTheirPosition() {
        #expect(TestOps.diagnostics("{\"version\": 1,\n  \"graph\": [ {\"op\": \"read\",} ]}") == [
            "test.json:2:28: error: invalid JSON: expected a quoted key",
        ])
        #expect(TestOps.diagnostics("{\"version\": 1, \"version\": 1}") == [
            #"test.json:1:16: error: invalid JSON: duplicate key "version""#,
        ])
        #expect(TestOps.diagnostics("[1]") == ["test.json:1:1: error: a preset must be a JSON object, found an array"])
    }

    @Test func missingRequiredKeysAndParameters() {
        #expect(TestOps.diagnostics("{\"graph\": [{\"op\": \"read\"}, {\"op\": \"write\"}]}") == [
            #"test.json:1:1: error: version: missing required key "version"; add "version": 1"#,
            #"test.json:1:28: error: graph[1].path: missing required parameter "path" for op "write" (a path template: Destination relative to the output root; may use {name} {stem} {ext} {index} {hash} {dir} and the variables of a "foreach" on this node or upstream ({w}).)"#,
        ])
        #expect(TestOps.diagnostics("{\"version\": 2, \"graph\": [{\"id\": 3}]}") == [
            "test.json:1:13: error: version: unsupported version 2; this workbench reads version 1",
            #"test.json:1:26: error: graph[0]: missing required key "op""#,
        ])
    }

    @Test func edgesAreChecked() {
        // A dangling reference, a kind mismatch and a source op with an input.
        #expect(TestOps.diagnostics("""
            {"version": 1, "graph": [
              {"op": "read"},
              {"id": "img", "op": "test.image"},
              {"op": "test.work", "from": "img"},
              {"op": "write", "path": "x", "from": "raed"},
              {"id": "again", "op": "test.source", "from": "read"}]}
            """) == [
            #"test.json:4:31: error: graph[2].from: "test.work" needs bytes, but "img" (test.image) produces an image"#,
            #"test.json:5:40: error: graph[3].from: no node has the id "raed"; did you mean "read"?"#,
            #"test.json:6:48: error: graph[4].from: "test.source" is a source op and reads the item itself; remove "from""#,
        ])
    }

    @Test func cyclesAndDuplicateIDsAreRefused() {
        #expect(TestOps.diagnostics("""
            {"version": 1, "graph": [
              {"op": "test.source"},
              {"id": "a", "op": "test.work", "from": "b"},
              {"id": "b", "op": "test.work", "from": "a"}]}
            """) == [
            #"test.json:3:3: error: graph[1].from: the graph has a cycle through "a", "b""#,
        ])
        #expect(TestOps.diagnostics("""
            {"version": 1, "graph": [{"op": "test.source"}, {"id": "test.source", "op": "test.work"}]}
            """) == [
            #"test.json:1:56: error: graph[1].id: duplicate node id "test.source" (also graph[0]); give each node its own "id""#,
        ])
    }

    @Test func explicitFromAllowsBranches() throws {
        let preset = try TestOps.load("""
            {"version": 1, "graph": [
              {"op": "test.source"},
              {"id": "a", "op": "write", "path": "a/{name}"},
              {"id": "b", "op": "write", "path": "b/{name}", "from": "test.source"}]}
            """)
        #expect(preset.nodes.map(\.from) == [[], ["test.source"], ["test.source"]])
        #expect(preset.warnings.isEmpty)
    }

    @Test func unusedResultsAreWarnedAbout() throws {
        let preset = try TestOps.load(#"{"version": 1, "graph": [{"op": "test.source"}, {"op": "test.work"}]}"#)
        #expect(preset.warnings.map(\.description) == [
            #"test.json:1:49: warning: graph[1]: the result of "test.work" is not used by any node; add a "write" after it to keep it"#,
        ])
    }

    @Test func inputsForms() throws {
        let map = try TestOps.load(#"{"version": 1, "inputs": {"map": {"Bridge": "file:///h/b.jpg"}}, "graph": [{"op": "read"}]}"#)
        #expect(map.inputs == .map([.init(name: "Bridge", source: "file:///h/b.jpg")]))
        #expect(TestOps.diagnostics(#"{"version": 1, "inputs": {"glob": "*.jpg", "file": "x"}, "graph": [{"op": "read"}]}"#) == [
            #"test.json:1:26: error: inputs: give exactly one of "glob", "file", "map" or "s3" (found 2)"#,
        ])
        let bucket = try TestOps.load(#"{"version": 1, "inputs": {"s3": "s3://photos/in/", "glob": "**/*.jpg"}, "s3": {"endpoint": "http://127.0.0.1:9000", "pathStyle": true}, "graph": [{"op": "test.source"}]}"#)
        #expect(bucket.inputs == .bucket("s3://photos/in/", glob: "**/*.jpg"))
        #expect(bucket.bucket == BucketSettings(endpoint: "http://127.0.0.1:9000", pathStyle: true))
        #expect(TestOps.diagnostics(#"{"version": 1, "inputs": {"s3": "photos/in/", "file": "x"}, "s3": {"endpoint": "minio:9000", "secret": "x", "pathStyle": "yes"}, "graph": [{"op": "test.source"}]}"#) == [
            #"test.json:1:47: error: inputs.file: unknown key "file" in inputs from a bucket (allowed: "s3", "glob")"#,
            #"test.json:1:33: error: inputs.s3: expected an s3://bucket/prefix/ URL, found "photos/in/""#,
            #"test.json:1:94: error: s3.secret: unknown key "secret" in S3 settings (credentials come from the environment or ~/.aws, never from a preset) (allowed: "endpoint", "region", "pathStyle")"#,
            #"test.json:1:80: error: s3.endpoint: expected an http:// or https:// URL, e.g. "https://minio.example.com:9000""#,
            #"test.json:1:122: error: s3.pathStyle: expected true or false, found a string"#,
        ])
    }

    @Test func aURLForAReadIsFoundByValidation() {
        let text = """
            {"version": 1, "inputs": ["a.jpg", "https://example.com/b.jpg", "file:///tmp/c.jpg"],
             "graph": [{"id": "source", "op": "read"}, {"op": "write", "path": "{name}"}]}
            """
        let diagnostics = TestOps.diagnostics(text)
        #expect(diagnostics.count == 1 && diagnostics[0].contains("inputs[1]: \"https://example.com/b.jpg\" is a URL, but \"source\" (graph[0]) is a \"read\""), "\(diagnostics)")
        let map = #"{"version": 1, "inputs": {"map": {"b": "https://example.com/b.jpg"}}, "graph": [{"op": "read"}, {"op": "write", "path": "{name}"}]}"#
        #expect(TestOps.diagnostics(map).first?.contains("inputs.map.b:") == true)
    }
}
