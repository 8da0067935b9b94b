import Foundation
import Testing
import WorkbenchTestSupport

/// The cluster examples in `examples/` run as written: the Kubernetes Indexed Job's command
/// once per index (as its pods would), then its merge job; the Slurm array script once per task.
@Suite struct ExampleJobTests {
    static let examples = Fixtures.packageRoot.appendingPathComponent("examples")

    /// A `/work` folder as the jobs expect it: the sample photos and a preset under `presets/`.
    static func work() throws -> URL {
        let work = try Fixtures.temporaryDirectory("example-job")
        let presets = work.appendingPathComponent("presets")
        try FileManager.default.createDirectory(at: presets.appendingPathComponent("samples"), withIntermediateDirectories: true)
        for photo in Fixtures.samplePhotos {
            try FileManager.default.copyItem(at: photo, to: presets.appendingPathComponent("samples/" + photo.lastPathComponent))
        }
        try FileManager.default.createDirectory(at: work.appendingPathComponent("reports"), withIntermediateDirectories: true)
        try FileManager.default.copyItem(at: Fixtures.presets.appendingPathComponent("sepia-thumbnails.json"),
                                         to: presets.appendingPathComponent("thumbnails.json"))
        return work
    }

    /// The `command:` list of a container in a job file (a block list, or a flow list on one line).
    static func command(in yaml: String) -> [String] {
        let lines = yaml.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        guard let start = lines.firstIndex(where: { $0.trimmingCharacters(in: .whitespaces).hasPrefix("command:") }) else { return [] }
        let head = lines[start].trimmingCharacters(in: .whitespaces).dropFirst("command:".count).trimmingCharacters(in: .whitespaces)
        if head.hasPrefix("[") {
            return head.dropFirst().dropLast().split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
        }
        return lines[(start + 1)...].prefix { $0.trimmingCharacters(in: .whitespaces).hasPrefix("- ") }
            .map { String($0.trimmingCharacters(in: .whitespaces).dropFirst(2)) }
    }

    /// Runs a command with `workbench` on the PATH and extra environment variables.
    static func run(_ arguments: [String], environment extra: [String: String]) throws -> (status: Int32, output: String) {
        let process = Process(), pipe = Pipe()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = arguments
        var environment = ProcessInfo.processInfo.environment
        environment["PATH"] = CLIProcess.executable.deletingLastPathComponent().path + ":" + (environment["PATH"] ?? "/usr/bin:/bin")
        environment["WORKBENCH_PLUGIN_PATH"] = nil
        for (key, value) in extra { environment[key] = value }
        process.environment = environment
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return (process.terminationStatus, output)
    }

    @Test func theKubernetesIndexedJobAndItsMergeMakeWhatOneRunMakes() throws {
        let job = try String(contentsOf: Self.examples.appendingPathComponent("kubernetes/indexed-job.yaml"), encoding: .utf8)
        let completions = job.split(separator: "\n").first { $0.contains("completions:") }
            .flatMap { Int($0.split(separator: ":")[1].split(separator: "#")[0].trimmingCharacters(in: .whitespaces)) }
        let work = try Self.work()
        let command = Self.command(in: job).map { $0.replacingOccurrences(of: "/work", with: work.path) }
        #expect(command.first == "workbench" && command.contains("auto/\(completions ?? -1)"), "\(command)")
        for index in 0..<(completions ?? 0) {
            let pod = try Self.run(command, environment: ["JOB_COMPLETION_INDEX": "\(index)"])
            #expect(pod.status == 0, "pod \(index): \(pod.output)")
        }
        let merge = try String(contentsOf: Self.examples.appendingPathComponent("kubernetes/merge-job.yaml"), encoding: .utf8)
        let merged = try Self.run(Self.command(in: merge).map { $0.replacingOccurrences(of: "/work", with: work.path) }, environment: [:])
        #expect(merged.status == 0, "\(merged.output)")

        let single = work.appendingPathComponent("single")
        #expect(try CLIProcess.run(["run", work.appendingPathComponent("presets/thumbnails.json").path, "--out", single.path]).status == 0)
        let out = work.appendingPathComponent("out")
        #expect(Fixtures.files(in: out, includingManifest: true) == Fixtures.files(in: single, includingManifest: true))
        #expect(try IncrementalRunTests.manifest(out).text == IncrementalRunTests.manifest(single).text)
    }

    /// The JSON of a ConfigMap's `NAME: |` block in a job file.
    static func configFile(_ name: String, in yaml: String) -> String {
        let lines = yaml.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        guard let start = lines.firstIndex(where: { $0.trimmingCharacters(in: .whitespaces) == "\(name): |" }) else { return "" }
        return lines[(start + 1)...].prefix { $0.hasPrefix("    ") }.joined(separator: "\n")
    }

    @Test func theBucketJobAndItsMergeMakeWhatOneRunMakesWithNoSharedVolume() throws {
        let job = try String(contentsOf: Self.examples.appendingPathComponent("kubernetes/bucket-indexed-job.yaml"), encoding: .utf8)
        let merge = try String(contentsOf: Self.examples.appendingPathComponent("kubernetes/bucket-merge-job.yaml"), encoding: .utf8)
        #expect(!job.contains("persistentVolumeClaim") && !merge.contains("persistentVolumeClaim") && !merge.contains("volumes:"))
        let completions = job.split(separator: "\n").first { $0.contains("completions:") }
            .flatMap { Int($0.split(separator: ":")[1].split(separator: "#")[0].trimmingCharacters(in: .whitespaces)) } ?? 0
        let server = try S3Server()
        try server.makeBucket("photos-example")
        for (i, photo) in Fixtures.samplePhotos.enumerated() {
            try server.put(photo, bucket: "photos-example", key: "originals/" + (i % 2 == 0 ? "2024/" : "") + photo.lastPathComponent)
        }
        // The ConfigMap's preset where the pod mounts it.
        let config = try Fixtures.temporaryDirectory("bucket-job")
        let preset = config.appendingPathComponent("thumbnails.json")
        try Self.configFile("thumbnails.json", in: job).write(to: preset, atomically: true, encoding: .utf8)
        // What EKS gives each pod: a role and a token file for web identity.
        let token = config.appendingPathComponent("token")
        try "eyJhbGciOiJSUzI1NiJ9.pod".write(to: token, atomically: true, encoding: .utf8)
        var pod = server.environment
        pod["AWS_ACCESS_KEY_ID"] = ""
        pod["AWS_SECRET_ACCESS_KEY"] = ""
        pod["AWS_ROLE_ARN"] = server.role
        pod["AWS_WEB_IDENTITY_TOKEN_FILE"] = token.path
        pod["AWS_ENDPOINT_URL_STS"] = server.endpoint
        let command = Self.command(in: job).map { $0.replacingOccurrences(of: "/config", with: config.path) }
        #expect(command.contains("auto/\(completions)") && completions > 1, "\(command)")
        for index in 0..<completions {
            pod["JOB_COMPLETION_INDEX"] = "\(index)"
            let run = try Self.run(command, environment: pod)
            #expect(run.status == 0, "pod \(index): \(run.output)")
        }
        pod["JOB_COMPLETION_INDEX"] = nil
        let merged = try Self.run(Self.command(in: merge), environment: pod)
        #expect(merged.status == 0 && merged.output.contains("\(Fixtures.samplePhotos.count) inputs"), "\(merged.output)")

        let single = try CLIProcess.run(["run", preset.path, "--out", "s3://photos-example/single/"], environment: server.environment)
        #expect(single.status == 0, "\(single.stderr)")
        let show = { (url: String) in try CLIProcess.run(["manifest", "show", url], environment: server.environment).stdout }
        #expect(try show("s3://photos-example/thumbnails/") == show("s3://photos-example/single/"))
        let thumbnails = try server.keys("photos-example", prefix: "thumbnails/").keys.filter { $0.hasSuffix(".jpg") }
        #expect(thumbnails.count == Fixtures.samplePhotos.count && thumbnails.contains { $0.hasPrefix("thumbnails/2024/") })
    }

    /// The watch Deployment's command as a pod runs it (its listener on a free port here): the
    /// prefix listed at start, a notification answered once its thumbnail is in the bucket, and
    /// the probes' path healthy.
    @Test func theWatchDeploymentMakesWhatTheBucketIsToldOf() throws {
        let deployment = try String(contentsOf: Self.examples.appendingPathComponent("kubernetes/watch-deployment.yaml"), encoding: .utf8)
        let server = try S3Server()
        try server.makeBucket("photos-example")
        try server.put(Fixtures.samples.appendingPathComponent("Bridge.jpg"), bucket: "photos-example", key: "originals/2024/before.jpg")
        let config = try Fixtures.temporaryDirectory("watch-deployment")
        try Self.configFile("thumbnails.json", in: deployment).write(to: config.appendingPathComponent("thumbnails.json"), atomically: true, encoding: .utf8)
        var command = Self.command(in: deployment).map { $0.replacingOccurrences(of: "/config", with: config.path) }
        #expect(command.first == "workbench" && command.contains("\":8080\""), "\(command)")
        command = command.dropFirst().map { $0 == "\":8080\"" ? "127.0.0.1:0" : $0.trimmingCharacters(in: CharacterSet(charactersIn: "\"")) }
        let pod = try CLIProcess(command, environment: server.environment)
        let limit = ContinuousClock.now + .seconds(120)
        while !pod.stderrSoFar.contains("/metrics.") && !pod.stderrSoFar.contains("rror") && ContinuousClock.now < limit { usleep(20_000) }
        let port = try #require(pod.stderrSoFar.firstMatch(of: /127\.0\.0\.1:(\d+)\//).flatMap { Int($0.1) }, "\(pod.stderrSoFar)")
        #expect(try RawHTTP.send(port: port, path: "/healthz").status == 200)
        try server.put(Fixtures.samples.appendingPathComponent("Wine.jpg"), bucket: "photos-example", key: "originals/new.jpg")
        let answer = try RawHTTP.send("POST", port: port, path: "/", body: WatchBucketTests.event("ObjectCreated:Put", bucket: "photos-example",
                                                                                              key: "originals/new.jpg"), timeout: 120)
        #expect(answer.status == 200, "\(answer.text)")
        #expect(try server.keys("photos-example", prefix: "thumbnails/")["thumbnails/new.jpg"] != nil)
        // What the listing at start found runs beside the notified object: it may end after it.
        var made = try server.keys("photos-example", prefix: "thumbnails/")
        while made["thumbnails/2024/before.jpg"] == nil && ContinuousClock.now < limit {
            usleep(50_000)
            made = try server.keys("photos-example", prefix: "thumbnails/")
        }
        #expect(made["thumbnails/2024/before.jpg"] != nil, "\(made)\n\(pod.stderrSoFar)")
        kill(pod.processIdentifier, SIGTERM)
        let result = pod.wait(watchdog: 120)
        #expect(result.status == 0, "\(result.stderr)")
    }

    @Test func theJobsPullTheImageOfThisVersion() throws {
        let version = try CLIProcess.run(["--version"]).stdout.split(separator: " ").first.map(String.init) ?? "?"
        for file in ["kubernetes/indexed-job.yaml", "kubernetes/merge-job.yaml", "kubernetes/bucket-indexed-job.yaml", "kubernetes/bucket-merge-job.yaml",
                     "kubernetes/watch-deployment.yaml"] {
            let job = try String(contentsOf: Self.examples.appendingPathComponent(file), encoding: .utf8)
            let images = job.split(separator: "\n").filter { $0.trimmingCharacters(in: .whitespaces).hasPrefix("image:") }
            #expect(!images.isEmpty && images.allSatisfy { $0.hasSuffix("/filterworkbench:\(version)") }, "\(file): \(images)")
            // The image's user can write to the volume (the bucket jobs have none).
            #expect(job.contains("fsGroup: 1000") || !job.contains("persistentVolumeClaim"), "\(file)")
        }
        let array = try String(contentsOf: Self.examples.appendingPathComponent("slurm/workbench-array.sbatch"), encoding: .utf8)
        #expect(array.contains("filterworkbench-\(version).oci.tar"))
    }

    @Test func theSlurmArrayScriptRunsOneShardPerTask() throws {
        let work = try Self.work()
        let script = Self.examples.appendingPathComponent("slurm/workbench-array.sbatch").path
        let out = work.appendingPathComponent("out")
        // --array=1-3: tasks numbered from 1, as many sites do.
        for task in 1...3 {
            let run = try Self.run(["bash", script], environment: [
                "SLURM_ARRAY_TASK_ID": "\(task)", "SLURM_ARRAY_TASK_MIN": "1", "SLURM_ARRAY_TASK_COUNT": "3",
                "SLURM_CPUS_PER_TASK": "1", "PRESET": work.appendingPathComponent("presets/thumbnails.json").path, "OUT": out.path])
            #expect(run.status == 0, "task \(task): \(run.output)")
        }
        let parts = Fixtures.files(in: out, includingManifest: true).filter { $0.hasPrefix("workbench-manifest.shard-") }
        #expect(parts.count == 3, "\(parts)")
        #expect(Fixtures.files(in: out).count == Fixtures.samplePhotos.count)
        // A task run again finds its shard done.
        let again = try Self.run(["bash", script], environment: [
            "SLURM_ARRAY_TASK_ID": "2", "SLURM_ARRAY_TASK_MIN": "1", "SLURM_ARRAY_TASK_COUNT": "3",
            "SLURM_CPUS_PER_TASK": "1", "PRESET": work.appendingPathComponent("presets/thumbnails.json").path, "OUT": out.path])
        #expect(again.status == 0 && again.output.contains("up to date"), "\(again.output)")
    }
}
