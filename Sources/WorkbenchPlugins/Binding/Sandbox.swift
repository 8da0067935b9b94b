import CHelperProcess
import Foundation

/// What an isolated plugin helper may still do once its plugin's library is loaded: compute
/// and answer the host. It enters the sandbox before its first kernel is made; a kernel that
/// then tries to run a program, start a process, open a socket, create or change a file, signal
/// or trace another process gets `EPERM` and its item fails naming the plugin and the attempt.
/// With Landlock (Linux ≥ 5.13) files outside the plugin's folder cannot be read either
/// (`EACCES`). `WORKBENCH_PLUGIN_SANDBOX=off` turns it off, for measuring what it costs.
public enum Sandbox {
    /// What this machine's kernel offers the sandbox.
    public struct Support: Sendable, Equatable {
        public let seccomp: Bool
        /// 0: no Landlock.
        public let landlockABI: Int

        /// One line for `workbench plugin list`.
        public var summary: String {
            guard seccomp else {
                return "unavailable (the kernel has no seccomp filters): isolated plugins run unconfined"
            }
            guard landlockABI > 0 else {
                return "seccomp only (no Landlock in this kernel): isolated plugins cannot run programs, use the network or write files, but may read any file the user can"
            }
            return "active (seccomp and Landlock ABI \(landlockABI)): isolated plugins may only compute and read their own folder"
        }
    }

    /// What this machine offers, asked once.
    public static let support: Support = {
        let probed = wbh_sandbox_probe()
        return Support(seccomp: probed.seccomp != 0, landlockABI: Int(probed.landlock_abi))
    }()

    /// Whether helpers enter the sandbox: yes unless `WORKBENCH_PLUGIN_SANDBOX=off`.
    public static var isEnabled: Bool {
        ProcessInfo.processInfo.environment["WORKBENCH_PLUGIN_SANDBOX"]?.lowercased() != "off"
    }

    /// Address space a helper may map beyond what it has when it enters: kernels get regions,
    /// not whole images, so 4 GiB is far more than any needs and stops one that runs away.
    static let addressSpace: UInt64 = 4 << 30

    /// Confines this process for good; throws why it could not.
    static func enter(folder: String) throws(PluginError) {
        var message = [CChar](repeating: 0, count: 512)
        guard wbh_sandbox_enter(folder, addressSpace, &message, message.count) >= 0 else {
            throw .refused(plugin: URL(fileURLWithPath: folder).lastPathComponent, folder: folder,
                           reason: "its helper could not enter the sandbox: \(messageText(message)) (WORKBENCH_PLUGIN_SANDBOX=off runs it unconfined)")
        }
    }

    /// What the sandbox refused since the last call, in words, or nil.
    static func takeRefusal() -> String? {
        let call = wbh_sandbox_take_refusal()
        guard call >= 0 else { return nil }
        return "the sandbox refused an attempt to \(String(cString: wbh_sandbox_call_action(call))) (\(String(cString: wbh_sandbox_call_name(call))))"
    }
}
