import Foundation
import Synchronization
import WorkbenchCore

/// Records which bodies ran, when, and how many ran at once per queue label.
final class Probe: Sendable {
    struct Start: Sendable {
        let label: String
        let item: Int
        let node: String
        let attempt: Int
        let time: ContinuousClock.Instant
    }

    private struct State {
        var running: [String: Int] = [:]
        var peak: [String: Int] = [:]
        var starts: [Start] = []
        var stoppedByToken: [String] = []
    }
    private let state = Mutex(State())
    /// Set by a test right after it cancels; a body starting later is a violation.
    let cancelledAt = Mutex<ContinuousClock.Instant?>(nil)
    let startedAfterCancel = Atomic<Int>(0)
    /// Called at every body start (e.g. to cancel at a chosen moment).
    let onStart = Mutex<(@Sendable (Int, Start) -> Void)?>(nil)

    func enter(_ label: String, _ context: StageContext) {
        let start = Start(label: label, item: context.item.index, node: context.nodeID, attempt: context.attempt, time: .now)
        let count = state.withLock {
            $0.running[label, default: 0] += 1
            $0.peak[label] = max($0.peak[label] ?? 0, $0.running[label] ?? 0)
            $0.starts.append(start)
            return $0.starts.count
        }
        if cancelledAt.withLock({ $0 }) != nil { startedAfterCancel.add(1, ordering: .relaxed) }
        if let hook = onStart.withLock({ $0 }) { hook(count, start) }
    }

    /// Returns once `count` bodies labelled `label` have started: woken by the start itself,
    /// however slow the machine. Takes over `onStart` while it waits.
    func waitForStarts(_ label: String, count: Int) async {
        final class Waiter: Sendable { let continuation = Mutex<CheckedContinuation<Void, Never>?>(nil) }
        let waiter = Waiter()
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            waiter.continuation.withLock { $0 = continuation }
            let check: @Sendable () -> Void = { [self] in
                guard starts.filter({ $0.label == label }).count >= count else { return }
                waiter.continuation.withLock { $0.take() }?.resume()
            }
            onStart.withLock { $0 = { _, _ in check() } }
            check()
        }
        onStart.withLock { $0 = nil }
    }

    func leave(_ label: String) { state.withLock { $0.running[label, default: 0] -= 1 } }
    func stopped(_ label: String) { state.withLock { $0.stoppedByToken.append(label) } }
    func peak(_ label: String) -> Int { state.withLock { $0.peak[label] ?? 0 } }
    var starts: [Start] { state.withLock { $0.starts } }
    var started: [String] { starts.map { "\($0.item)/\($0.node)" } }
    var stoppedByToken: [String] { state.withLock { $0.stoppedByToken } }
}

/// An error a test stage throws, retryable or not.
struct PlannedFailure: RetryableError, CustomStringConvertible {
    let isRetryable: Bool
    var retryAfter: Double? { nil }
    var description: String { isRetryable ? "planned retryable failure" : "planned failure" }
}

/// Small real stages for exercising the loader and the scheduler without images.
enum TestOps {
    /// `test.source`: bytes naming the item (or the `value` parameter, for run scope).
    struct Source: Stage {
        let probe: Probe
        let value: String?
        let ms: Int
        func run(_ inputs: StageInputs, context: StageContext) throws -> Payload {
            probe.enter("source", context)
            defer { probe.leave("source") }
            do { try wait(ms, context) } catch {
                probe.stopped("\(context.item.index)/\(context.nodeID)")
                throw error
            }
            return .bytes(Bytes(Data((value ?? context.item.name).utf8), origin: context.item.source))
        }
    }

    /// `test.work`: waits `ms` (stopping early when cancelled), can fail, passes its input on
    /// (with the `other` reference appended when given).
    struct Work: Stage {
        let probe: Probe
        let label: String
        let ms: Int
        let failFor: String?
        let failTimes: Int
        let retryable: Bool

        func run(_ inputs: StageInputs, context: StageContext) throws -> Payload {
            probe.enter(label, context)
            defer { probe.leave(label) }
            do { try wait(ms, context) } catch {
                probe.stopped("\(context.item.index)/\(context.nodeID)")
                throw error
            }
            if let failFor, context.item.name.contains(failFor) { throw PlannedFailure(isRetryable: retryable) }
            if context.attempt <= failTimes { throw PlannedFailure(isRetryable: retryable) }
            guard case .bytes(let first)? = inputs.first else { throw WorkbenchError.unexpectedInput(node: context.nodeID, expected: "bytes") }
            var data = first.data
            for other in inputs.references("other") { if case .bytes(let b) = other { data += b.data } }
            return .bytes(Bytes(data, origin: first.origin))
        }
    }

    /// `test.warn`: passes its input on, recording `message` as a warning blamed on node "source".
    struct Warn: Stage {
        let message: String
        func run(_ inputs: StageInputs, context: StageContext) throws -> Payload {
            context.warn(message, node: "source")
            return inputs.first ?? .bytes(Bytes(Data(), origin: "warn"))
        }
    }

    /// `test.fail`: fails (not to be retried) once node `after` has started a body — an event,
    /// not a clock, so the order holds however loaded the machine.
    struct Fail: Stage {
        let probe: Probe
        let after: String
        func run(_ inputs: StageInputs, context: StageContext) throws -> Payload {
            while !probe.starts.contains(where: { $0.node == after }) {
                if context.cancellation.isCancelled { throw WorkbenchError.cancelled }
                usleep(1000)
            }
            throw PlannedFailure(isRetryable: false)
        }
    }

    /// `test.collect`: run scope, joins every item's bytes (fan-in) with commas.
    struct Collect: Stage {
        let probe: Probe
        func run(_ inputs: StageInputs, context: StageContext) throws -> Payload {
            probe.enter("collect", context)
            defer { probe.leave("collect") }
            let parts = inputs.references("all").compactMap { payload -> String? in
                if case .bytes(let b) = payload { return String(decoding: b.data, as: UTF8.self) } else { return nil }
            }
            return .bytes(Bytes(Data(parts.joined(separator: ",").utf8), origin: "collect"))
        }
    }

    /// Sleeps in 1 ms steps, throwing as soon as the node is cancelled.
    static func wait(_ ms: Int, _ context: StageContext) throws {
        let end = ContinuousClock.now + .milliseconds(ms)
        while ContinuousClock.now < end {
            if context.cancellation.isCancelled { throw WorkbenchError.cancelled }
            usleep(ms >= 5 ? 1000 : 100)
        }
    }

    static func registry(probe: Probe = Probe()) -> OpRegistry {
        var registry = OpRegistry(CoreOps.all)
        registry.register(OpDefinition(OpSpec(
            name: "test.source", summary: "Test source.", input: nil, output: .bytes,
            defaultQueue: "cpu", execution: .cpu, parameters: [
                ParameterSpec("value", .string, "Bytes to produce instead of the item name."),
                ParameterSpec("ms", .int(0...60_000), default: .int(0), "Milliseconds to wait."),
            ], sourceParameter: "value")) { p in Source(probe: probe, value: p.string("value"), ms: p.int("ms") ?? 0) })
        registry.register(OpDefinition(OpSpec(
            name: "test.work", summary: "Test work.", input: .bytes, output: .bytes,
            defaultQueue: "cpu", execution: .cpu, parameters: [
                ParameterSpec("ms", .int(0...60_000), default: .int(0), "Milliseconds to wait."),
                ParameterSpec("failFor", .string, "Fail items whose name contains this."),
                ParameterSpec("label", .string, default: .string("cpu"), "Label for the probe."),
                ParameterSpec("failTimes", .int(0...100), default: .int(0), "Fail the first attempts."),
                ParameterSpec("retryable", .bool, default: .bool(true), "Whether failures may be retried."),
                ParameterSpec("other", .reference(.bytes), "Another node's bytes to append."),
            ])) { p in
                Work(probe: probe, label: p.string("label") ?? "cpu", ms: p.int("ms") ?? 0, failFor: p.string("failFor"),
                     failTimes: p.int("failTimes") ?? 0, retryable: p.bool("retryable") ?? true)
            })
        registry.register(OpDefinition(OpSpec(
            name: "test.io", summary: "Test I/O work.", input: .bytes, output: .bytes,
            defaultQueue: "net", execution: .io, parameters: [
                ParameterSpec("ms", .int(0...60_000), default: .int(0), "Milliseconds to wait."),
                ParameterSpec("label", .string, default: .string("io"), "Label for the probe."),
            ])) { p in
                Work(probe: probe, label: p.string("label") ?? "io", ms: p.int("ms") ?? 0, failFor: nil, failTimes: 0, retryable: false)
            })
        registry.register(OpDefinition(OpSpec(
            name: "test.warn", summary: "Records a warning.", input: .bytes, output: .bytes,
            defaultQueue: "cpu", execution: .cpu, parameters: [
                ParameterSpec("message", .string, required: true, "The warning."),
            ])) { p in Warn(message: p.string("message") ?? "") })
        registry.register(OpDefinition(OpSpec(
            name: "test.fail", summary: "Fails once another node has started.", input: .bytes, output: .bytes,
            defaultQueue: "cpu", execution: .cpu, parameters: [
                ParameterSpec("after", .string, required: true, "The node whose start comes first."),
            ])) { p in Fail(probe: probe, after: p.string("after") ?? "") })
        registry.register(OpDefinition(OpSpec(
            name: "test.collect", summary: "Fan-in.", input: nil, output: .bytes,
            defaultQueue: "cpu", execution: .cpu, parameters: [
                ParameterSpec("all", .fanIn(.bytes), required: true, "Every item's bytes."),
            ])) { _ in Collect(probe: probe) })
        registry.register(OpDefinition(OpSpec(
            name: "test.image", summary: "Produces an image kind (for type checks).", input: .bytes, output: .image,
            defaultQueue: "cpu", execution: .cpu, parameters: [])) { _ in Source(probe: probe, value: nil, ms: 0) })
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
