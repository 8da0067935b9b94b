import Foundation

// scheduler-bench: the scheduler issue's workloads on the workbench scheduler and on Foundation's
// OperationQueue, side by side. Each measurement runs in its own process (so peak RSS is its own);
// the table shows medians.
//
//   scheduler-bench [RUNS] [W1 W2 ...]     measure and print the table (default: 3 runs, all workloads)
//   scheduler-bench measure W1 ours|oq     one measurement, printed as one line (used by the above)

let arguments = CommandLine.arguments
if arguments.count >= 4, arguments[1] == "measure", let workload = Workload(rawValue: arguments[2]) {
    do {
        let m = arguments[3] == "ours" ? try OurScheduler.measure(workload) : OperationQueueBaseline.measure(workload)
        print(m.line)
        exit(0)
    } catch {
        FileHandle.standardError.write(Data("\(error)\n".utf8))
        exit(1)
    }
}

let runs = arguments.dropFirst().first.flatMap(Int.init) ?? 3
let measurementLimit = 60.0
let chosen = arguments.dropFirst().compactMap { Workload(rawValue: $0) }
let workloads = chosen.isEmpty ? Workload.allCases : chosen

func measureInChild(_ workload: Workload, _ impl: String) -> Measurement? {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: arguments[0].hasPrefix("/") ? arguments[0]
        : FileManager.default.currentDirectoryPath + "/" + arguments[0])
    process.arguments = ["measure", workload.rawValue, impl]
    let pipe = Pipe()
    process.standardOutput = pipe
    do { try process.run() } catch { return nil }
    // OperationQueue is quadratic in fan-in; give up on a measurement after a minute.
    let watchdog = DispatchWorkItem { process.terminate() }
    DispatchQueue.global().asyncAfter(deadline: .now() + measurementLimit, execute: watchdog)
    let data = pipe.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    watchdog.cancel()
    return Measurement(line: String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines))
}

func median(_ values: [Double]) -> Double {
    let sorted = values.sorted()
    guard !sorted.isEmpty else { return 0 }
    return sorted.count % 2 == 1 ? sorted[sorted.count / 2] : (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2
}

func f(_ value: Double, _ digits: Int = 2) -> String { String(format: "%.\(digits)f", value) }

print("scheduler-bench: \(runs) runs per cell, medians; \(ProcessInfo.processInfo.activeProcessorCount) cores; bodies ~300 ns (W4: 50 µs)")
print("| workload | scheduler | wall s | tasks/s | CPU µs/task | overhead µs/task | peak RSS MiB | wall ratio OQ/ours | CPU ratio OQ/ours |")
print("|---|---|---|---|---|---|---|---|---|")
var w4Rows: [String] = []
for workload in workloads {
    var results: [String: [Measurement]] = [:]
    for _ in 0..<runs {
        for impl in ["ours", "oq"] {
            if let m = measureInChild(workload, impl) { results[impl, default: []].append(m) }
        }
    }
    let wall = results.mapValues { median($0.map(\.wall)) }
    let cpu = results.mapValues { median($0.map(\.cpu)) }
    for (impl, name) in [("ours", "workbench"), ("oq", "OperationQueue")] {
        guard let ms = results[impl], !ms.isEmpty else {
            print("| \(workload.rawValue) | \(name) | > \(Int(measurementLimit)) (stopped) | | | | | | |")
            continue
        }
        let bodies = Double(max(1, median(ms.map { Double($0.bodies) }).rounded()))
        let overhead = median(ms.map { ($0.cpu - $0.bodySeconds) / Double(max(1, $0.bodies)) * 1e6 })
        let rss = median(ms.map { Double($0.peakRSSKiB) / 1024 })
        let ratios = impl == "ours" ? "" : "\(f((wall["oq"] ?? 0) / max(1e-9, wall["ours"] ?? 1))) | \(f((cpu["oq"] ?? 0) / max(1e-9, cpu["ours"] ?? 1)))"
        print("| \(workload.rawValue) | \(name) | \(f(wall[impl] ?? 0, 3)) | \(Int(bodies / max(1e-9, wall[impl] ?? 1))) | \(f((cpu[impl] ?? 0) / bodies * 1e6)) | \(f(overhead)) | \(f(rss, 1)) | \(ratios.isEmpty ? " | " : ratios) |")
        if workload == .w4 {
            w4Rows.append("| \(name) | \(f(median(ms.map(\.toTenPercent)), 3)) | \(f(median(ms.map(\.cancelToDrained)) * 1000, 2)) | \(Int(median(ms.map { Double($0.startedAfterCancel) }))) |")
        }
    }
}
if !w4Rows.isEmpty {
    print("\n| W4 | time to 10% of chains s | cancel → drained ms | bodies started after cancel |")
    print("|---|---|---|---|")
    w4Rows.forEach { print($0) }
}
