import Foundation

/// The limits the system puts on this process that a run can hit before memory runs out: the
/// address space (`ulimit -v`, a cluster's memory cap) and the number of threads.
public enum ProcessLimits {
    /// The address-space limit in bytes, or nil when there is none.
    public static var addressSpace: Int? {
        var limit = rlimit()
        guard getrlimit(__rlimit_resource_t(RLIMIT_AS.rawValue), &limit) == 0, limit.rlim_cur != rlim_t.max else { return nil }
        return Int(clamping: limit.rlim_cur)
    }

    /// The address space this process has mapped now, in bytes (`VmSize`).
    public static var mapped: Int? {
        // Without /proc (not Linux) the size is unknown: nil, and the caller does not limit by it.
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
              let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmSize:") }),
              let kib = Int(line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "") else { return nil }
        return kib << 10
    }

    /// Address space a run takes beyond what the program and its libraries map at start: its
    /// threads (a stack of 1 MiB each under a limit), one malloc arena and the run's own
    /// structures, then each worker's photo in flight. Measured on a release build: the sample
    /// presets peaked 64 MiB above the start; the reference photos (12–16 MP) 84 MiB with one
    /// worker and 117 MiB with two (docs/safety.md).
    /// What each worker holds for a photo of up to 16 megapixels decoded at a small DCT scale:
    /// all that is known before a preset is read (`RunFootprint` counts a plan's).
    public static let photoInFlight = 32 << 20

    /// `perWorker`: what each worker holds for an item (`RunFootprint`; `photoInFlight` before a preset is read).
    public static func runReserve(workers: Int, perWorker: Int = photoInFlight) -> Int {
        (64 << 20) + max(1, workers) * perWorker
    }

    /// A need in whole MiB, rounded up to the next 8: what the program maps at start moves by
    /// some KiB from run to run, so advice given to the KiB could fall short of the next run.
    static func advised(_ bytes: Int) -> Int { (bytes + (8 << 20) - 1) / (8 << 20) * (8 << 20) }

    /// Why a run with `workers` workers cannot start under the address-space limit, or nil
    /// when it can: checked before the first thread exists, since a thread the system then
    /// refuses to the Swift runtime or libdispatch leaves the process waiting for ever, and a
    /// buffer refused to libvips in a worker, or to Swift, ends the process. `perWorker`: what
    /// each worker holds for an item of the preset's plan (`RunFootprint.perWorker`).
    /// `beforeLoading`: checked before the preset is read, whose ops and plugins map some more
    /// (5 MiB for the sample presets; 8 allowed), so that advice given now holds after it.
    public static func refusalToRun(workers: Int, perWorker: Int = photoInFlight, beforeLoading: Bool = false) -> String? {
        guard let limit = addressSpace, let started = mapped else { return nil }
        let mapped = started + (beforeLoading ? 8 << 20 : 0)
        let reserve = runReserve(workers: workers, perWorker: perWorker)
        let needed = advised(mapped + reserve)
        guard limit < needed else { return nil }
        let alone = advised(mapped + runReserve(workers: 1, perWorker: perWorker))
        let fewer = workers > 1 ? " or run with --jobs 1 (it then needs \(alone >> 20) MiB: ulimit -v \(alone >> 10))" : ""
        let each = perWorker == photoInFlight ? "photos of up to 16 megapixels in flight"
            : "each worker's \(perWorker >> 20) MiB for what the plan holds of a photo of up to 16 megapixels"
        return "The address-space limit (ulimit -v) is \(limit >> 20) MiB; a run with \(workers) worker\(workers == 1 ? "" : "s") needs \(needed >> 20) MiB "
            + "(\(mapped >> 20) MiB of program and libraries, \(reserve >> 20) MiB for threads and \(each)). "
            + "Raise the limit (ulimit -v \(needed >> 10))\(fewer); docs/safety.md says what a run needs."
    }

    /// What to tell a user whose run could not get a thread or a mapping: the limit in force,
    /// and what to do about it.
    public static var advice: String {
        guard let limit = addressSpace else {
            return "the system refused it (too many threads or processes for this user, or no memory left); lower --jobs or free memory"
        }
        return "the address-space limit (ulimit -v) is \(limit >> 20) MiB, too little for this run; raise it (see docs/safety.md for what a run needs) or lower --jobs"
    }
}
