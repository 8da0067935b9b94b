import Foundation
import Synchronization
import WorkbenchCore

/// Records how many bodies run at once and which ran, to check the scheduler's guarantees.
final class Probe: Sendable {
    private struct State {
        var running: [String: Int] = [:]
        var peak: [String: Int] = [:]
        var started: [String] = []
    }
    private let state = Mutex(State())

    func enter(_ queue: String, _ label: String) {
        state.withLock {
            $0.running[queue, default: 0] += 1
            $0.peak[queue] = max($0.peak[queue] ?? 0, $0.running[queue] ?? 0)
            $0.started.append(label)
        }
    }

    func leave(_ queue: String) { state.withLock { $0.running[queue, default: 0] -= 1 } }
    func peak(_ queue: String) -> Int { state.withLock { $0.peak[queue] ?? 0 } }
    var started: [String] { state.withLock { $0.started } }
}

/// Small real stages for exercising the loader and the scheduler without images.
enum TestOps {
    /// `test.source`: bytes naming the item.
    struct Source: Stage {
        func run(_ inputs: [Payload], context: StageContext) throws -> Payload {
            .bytes(Bytes(Data(context.item.name.utf8), origin: context.item.source))
        }
    }

    /// `test.work`: sleeps `ms`, fails for items whose name contains `fail`, passes the bytes on.
    struct Work: Stage {
        let probe: Probe
        let queue: String
        let milliseconds: Int
        let failing: String?

        func run(_ inputs: [Payload], context: StageContext) throws -> Payload {
            probe.enter(queue, "\(context.item.name)/\(context.nodeID)")
            defer { probe.leave(queue) }
            usleep(useconds_t(milliseconds * 1000))
            if let failing, context.item.name.contains(failing) {
                throw WorkbenchError.readFailed(path: context.item.name, reason: "planned failure")
            }
            guard let first = inputs.first else { throw WorkbenchError.unexpectedInput(node: context.nodeID, expected: "bytes") }
            return first
        }
    }

    static func registry(probe: Probe = Probe()) -> OpRegistry {
        var registry = OpRegistry(CoreOps.all)
        registry.register(OpDefinition(OpSpec(
            name: "test.source", summary: "Test source.", input: nil, output: .bytes,
            defaultQueue: "cpu", execution: .cpu, parameters: [])) { _ in Source() })
        registry.register(OpDefinition(OpSpec(
            name: "test.work", summary: "Test work.", input: .bytes, output: .bytes,
            defaultQueue: "cpu", execution: .cpu, parameters: [
                ParameterSpec("ms", .int(0...10_000), default: .int(0), "Milliseconds to sleep."),
                ParameterSpec("failFor", .string, "Fail items whose name contains this."),
                ParameterSpec("label", .string, default: .string("cpu"), "Queue label for the probe."),
            ])) { p in
                Work(probe: probe, queue: p.string("label") ?? "cpu", milliseconds: p.int("ms") ?? 0,
                     failing: p.string("failFor"))
            })
        registry.register(OpDefinition(OpSpec(
            name: "test.image", summary: "Produces an image kind (for type checks).", input: .bytes, output: .image,
            defaultQueue: "cpu", execution: .cpu, parameters: [])) { _ in Source() })
        return registry
    }

    static func load(_ json: String, registry: OpRegistry = TestOps.registry(), file: String = "test.json") throws -> Preset {
        try PresetLoader(registry: registry).load(json: Array(json.utf8), file: file, baseDirectory: "/tmp")
    }

    static func diagnostics(_ json: String, registry: OpRegistry = TestOps.registry()) -> [String] {
        do {
            _ = try load(json, registry: registry)
            return []
        } catch {
            if case .invalidPreset(let list) = error as? WorkbenchError { return list.map(\.description) }
            return ["unexpected: \(error)"]
        }
    }
}
