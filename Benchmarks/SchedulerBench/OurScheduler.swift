import Foundation
import WorkbenchCore

/// Runs a workload as a preset on the workbench scheduler.
enum OurScheduler {
    private struct SpinStage: Stage {
        let body: Body
        let last: Bool
        static let nothing = Payload.bytes(Bytes(Data(), origin: ""))
        func run(_ inputs: StageInputs, context: StageContext) throws -> Payload {
            body.run(lastStage: last)
            return Self.nothing
        }
    }

    private static func registry(_ body: Body) -> OpRegistry {
        let parameters = [
            ParameterSpec("after", .reference(.bytes), "Runs after this node."),
            ParameterSpec("all", .fanIn(.bytes), "Runs after every item's node."),
            ParameterSpec("last", .bool, default: .bool(false), "The last stage of a chain."),
            ParameterSpec("value", .string, "Lets the root run with run scope."),
        ]
        var registry = OpRegistry()
        registry.register(OpDefinition(OpSpec(name: "spin", summary: "", input: nil, output: .bytes, defaultQueue: "cpu",
                                              execution: .cpu, parameters: parameters, sourceParameter: "value")) { p in
            SpinStage(body: body, last: p.bool("last") ?? false)
        })
        registry.register(OpDefinition(OpSpec(name: "spin.next", summary: "", input: .bytes, output: .bytes, defaultQueue: "cpu",
                                              execution: .cpu, parameters: parameters)) { p in
            SpinStage(body: body, last: p.bool("last") ?? false)
        })
        return registry
    }

    private static func preset(_ workload: Workload) -> (json: String, items: Int) {
        switch workload {
        case .w1:
            return (#"{"version": 1, "graph": [{"op": "spin"}]}"#, 100_000)
        case .w2, .w4:
            let queues = Workload.chainLimits.enumerated().map { #""s\#($0)": {"concurrency": \#($1)}"# }.joined(separator: ", ")
            let nodes = (0..<5).map { i in
                #"{"id": "n\#(i)", "op": "\#(i == 0 ? "spin" : "spin.next")", "queue": "s\#(i)", "last": \#(i == 4)}"#
            }
            return (#"{"version": 1, "queues": {\#(queues)}, "graph": [\#(nodes.joined(separator: ", "))]}"#, Workload.chains)
        case .w3, .w3x10:
            return (#"""
                {"version": 1, "graph": [
                  {"id": "root", "op": "spin", "scope": "run", "value": "x"},
                  {"id": "child", "op": "spin", "after": "@root"},
                  {"id": "sink", "op": "spin", "scope": "run", "all": "@child[*]"}]}
                """#, workload.children)
        }
    }

    static func measure(_ workload: Workload) throws -> Measurement {
        let body = Body(nanoseconds: workload.bodyNanoseconds)
        let (json, count) = preset(workload)
        let loaded = try PresetLoader(registry: registry(body)).load(json: Array(json.utf8), file: workload.rawValue,
                                                                     baseDirectory: "/tmp")
        let output = try OutputRoot(NSTemporaryDirectory() + "/scheduler-bench")
        let items = ItemSource.generated(count: count) { Item(index: $0, name: "i", source: "s") }
        let cpu0 = cpuSeconds(), t0 = nanos()
        let workers = ProcessInfo.processInfo.environment["BENCH_WORKERS"].flatMap(Int.init)
        let window = ProcessInfo.processInfo.environment["BENCH_WINDOW"].flatMap(Int.init) ?? 256
        let run = PresetRun.start(loaded, items: items, output: output,
                                  options: RunOptions(workers: workers, window: window, eventDetail: .none))
        if workload == .w4 { body.cancel.withLock { $0 = { run.cancel() } } }
        _ = run.waitUntilFinished()
        let t1 = nanos()
        let m = Measurement(workload, body: body, start: t0, end: t1, cpuAtStart: cpu0)
        return m
    }
}
