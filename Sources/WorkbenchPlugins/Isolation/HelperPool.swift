import Foundation
import Synchronization
import WorkbenchCore
import WorkbenchKernels

/// The helper processes that run isolated plugin kernels, kept for the whole run and shared by
/// every node: a libvips thread leases one for as long as it runs a kernel on an image.
///
/// A helper that crashes or overruns the per-region time limit fails the region it was given
/// (so that item fails, naming plugin, filter, item and signal) and is replaced by a new one on
/// the next lease — at most `Limits.restarts` times per plugin in a run, after which that
/// plugin's remaining work fails at once instead of crashing over and over.
public final class HelperPool: Sendable {
    public struct Limits: Sendable {
        /// Longest a helper may take over one region.
        public var regionSeconds: Double
        /// Helpers replaced after a crash or overrun, per plugin and run.
        public var restarts: Int
        /// The workbench executable (the helper is its hidden `plugin-helper` subcommand).
        public var executable: String
        /// Where a helper's printed lines go, each as `plugin: text` (default: standard error).
        public var output: @Sendable (String) -> Void

        public init(regionSeconds: Double = 60, restarts: Int = 3, executable: String? = nil,
                    output: (@Sendable (String) -> Void)? = nil) {
            self.regionSeconds = regionSeconds
            self.restarts = restarts
            self.executable = executable ?? HelperPool.currentExecutable
            self.output = output ?? HelperOutput.standardError
        }
    }

    static var currentExecutable: String {
        // Without /proc, the path the program was started by is the next best guess.
        (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
    }

    let limits: Limits
    private struct State {
        var idle: [String: [HelperChannel]] = [:]
        /// Helpers that crashed or overran, per plugin folder.
        var failures: [String: Int] = [:]
        /// Helpers started after a failure, per plugin folder.
        var restarts: [String: Int] = [:]
        var closed = false
    }
    private let state = Mutex(State())
    private let cancelled = Atomic<Bool>(false)

    /// Whether `cancel()` was called: regions under way give up waiting.
    var isCancelled: Bool { cancelled.load(ordering: .acquiring) }

    func cancel() { cancelled.store(true, ordering: .releasing) }

    public init(limits: Limits) { self.limits = limits }

    /// A helper for `manifest`'s plugin: an idle one, or a new one.
    func lease(_ manifest: PluginManifest) throws(PluginError) -> HelperChannel {
        let reused: Result<HelperChannel?, PluginError> = state.withLock { state in
            if let idle = state.idle[manifest.folder]?.popLast() { return .success(idle) }
            // A new helper after a failure is a restart: at most `limits.restarts` per run.
            let failures = state.failures[manifest.folder, default: 0]
            guard failures > 0 else { return .success(nil) }
            guard state.restarts[manifest.folder, default: 0] < limits.restarts else {
                return .failure(.helperFailed(plugin: manifest.name, filter: "*",
                                              reason: "its helper process failed \(failures) times in this run; not restarted again"))
            }
            state.restarts[manifest.folder, default: 0] += 1
            return .success(nil)
        }
        if let channel = try reused.get() { return channel }
        do throws(HelperChannel.Failure) {
            return try HelperChannel(executable: limits.executable, folder: manifest.folder, label: manifest.name,
                                     output: limits.output, startSeconds: 30)
        } catch {
            throw .refused(plugin: manifest.name, folder: manifest.folder, reason: Self.describe(error))
        }
    }

    /// Takes back a healthy helper.
    func giveBack(_ channel: HelperChannel) {
        let keep = state.withLock { state in
            guard !state.closed else { return false }
            state.idle[channel.folder, default: []].append(channel)
            return true
        }
        if !keep { channel.discard() }
    }

    /// Ends a helper that crashed, overran or was interrupted; `counts`: a crash or overrun.
    func discard(_ channel: HelperChannel, counts: Bool) {
        channel.discard()
        if counts { state.withLock { $0.failures[channel.folder, default: 0] += 1 } }
    }

    /// Starts a helper that loads and checks the plugin's library, and keeps it for the run.
    func probe(_ manifest: PluginManifest) throws(PluginError) {
        giveBack(try lease(manifest))
    }

    /// Ends every idle helper; helpers still leased end when their lease does.
    public func shutdown() {
        let idle = state.withLock { state in
            state.closed = true
            defer { state.idle = [:] }
            return state.idle.values.flatMap { $0 }
        }
        for channel in idle { channel.discard() }
    }

    /// A kernel table for `filter` whose regions are computed by this pool's helpers.
    func table(_ manifest: PluginManifest, _ filter: PluginManifest.FilterDeclaration, _ values: ParameterValues, item: String,
               cancellation: CancellationToken?) throws(PluginError) -> CKernelTable {
        let wire = WireValue.encode(values, filter.parameters)
        let channel = try lease(manifest)
        let reply: HelperReply
        do throws(HelperChannel.Failure) {
            reply = try channel.call(.describe(filter: filter.name, values: wire), seconds: limits.regionSeconds, cancelled: nil)
        } catch {
            discard(channel, counts: true)
            throw .helperFailed(plugin: manifest.name, filter: filter.name, reason: "the helper \(Self.describe(error)) on item \(item)")
        }
        giveBack(channel)
        switch reply {
        case .described(let margin, let input, let output):
            return KernelTable.make(RemoteKernel(pool: self, manifest: manifest, filter: filter.name, values: wire, item: item,
                                                 margin: margin, inputColourBands: input, outputColourBands: output,
                                                 cancellation: cancellation))
        case .failed(let message):
            throw .helperFailed(plugin: manifest.name, filter: filter.name, reason: message)
        default:
            throw .helperFailed(plugin: manifest.name, filter: filter.name, reason: "the helper answered out of turn")
        }
    }

    static func describe(_ failure: HelperChannel.Failure) -> String {
        switch failure {
        case .died(let how): return "crashed (\(how))"
        case .timedOut(let seconds): return "took over \(Int(exactly: seconds.rounded()).map(String.init) ?? String(seconds)) s on one region and was stopped"
        case .cancelled: return "was stopped: the run was cancelled"
        case .broken(let reason): return "failed: \(reason)"
        }
    }
}
