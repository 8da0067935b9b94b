import Foundation
import Logging
import WorkbenchCore
import WorkbenchVips

/// What the cards show while a control moves: the preset as the page has it (unsaved) run on
/// screen-size copies of the items on screen, into a folder of its own, so the output folder
/// only ever holds what the saved preset makes. Each change starts a new generation and
/// cancels the one before (through its run's graph): only the latest value finishes.
actor DraftPreviews {
    /// Longest edge of an item's screen-size copy (`--preview-size`, 512 by default: a card
    /// shows its output at most 340 CSS pixels wide).
    let size: Int
    let folder: String
    private let logger = Logger(label: "workbench.serve.preview")
    /// Each item's copy, its longest side and the original's.
    private var copies: [Int: (path: String, size: PreviewScale.Size, original: PreviewScale.Size)] = [:]
    private var runs: [PresetRun] = []
    /// Every node's results on the copies, by recipe: a change runs from the first node whose
    /// parameters changed (the copies never change, so the item's name is its input's identity).
    private let results = ResultCache(reach: .everyNode)
    private(set) var generation = 0
    /// The newest preview file of each item and the generation that made it.
    private var made: [Int: (generation: Int, file: String)] = [:]

    /// The pool the previews run on (the session's), or nil for threads of their own.
    let pool: WorkerPool?

    init(size: Int, pool: WorkerPool? = nil) {
        self.size = size
        self.pool = pool
        folder = NSTemporaryDirectory() + "workbench-preview-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
    }

    /// The newest preview of item `index`, if one was made.
    func file(_ index: Int) -> String? { made[index]?.file }

    /// Preview runs started so far (a burst of changes runs its first and its last only).
    private(set) var runsStarted = 0
    /// Bodies the newest finished preview ran, over all its items (kept results are not run again).
    private(set) var lastNodesRun = 0
    /// The generation of the newest preview that ran to its end.
    private(set) var finished = 0
    /// What the newest run scaled for its first item.
    private(set) var lastScaled: [PreviewScale.Scaled] = []
    private var pending: Request?
    private var draining = false

    struct Request {
        let preset: Preset
        let items: [Item]
        let indices: [Int]
        let generation: Int
        /// The `write` nodes whose files show the change (empty: any file).
        let shows: Set<String>
        /// The preset with these pixel parameters scaled (nil if it does not load).
        let variant: @Sendable ([PreviewScale.Scaled]) -> Preset?
        /// Told what was scaled for the first item's copy.
        let scaled: @Sendable ([PreviewScale.Scaled]) -> Void
        let ready: @Sendable (Int, Int) -> Void
    }

    /// Runs `preset` on copies of the items at `indices`; `ready` hears of each preview as it is
    /// written. A run under way is cancelled; when it has ended, the newest change runs and
    /// every change between is skipped.
    /// `changed`: the nodes the change touches; a card shows a file they lead to, not one the
    /// change leaves as it was.
    func start(_ preset: Preset, items: [Item], indices: [Int], changed: Set<String> = [],
               variant: @escaping @Sendable ([PreviewScale.Scaled]) -> Preset?,
               scaled: @escaping @Sendable ([PreviewScale.Scaled]) -> Void, ready: @escaping @Sendable (Int, Int) -> Void) {
        generation += 1
        pending = Request(preset: preset, items: items, indices: indices, generation: generation, shows: Self.writes(downstreamOf: changed, in: preset),
                          variant: variant, scaled: scaled, ready: ready)
        for run in runs { run.cancel() }
        guard !draining else { return }
        draining = true
        Task { await self.drain() }
    }

    private func drain() async {
        while let next = pending {
            pending = nil
            await execute(next)
        }
        draining = false
    }

    /// Items whose copies need the same scaling run together: one run per group.
    private func execute(_ request: Request) async {
        var groups: [(key: String, scaled: [PreviewScale.Scaled], items: [Item])] = []
        var index: [String: Int] = [:]
        for i in request.indices where request.items.indices.contains(i) {
            guard let copy = await copy(of: request.items[i], index: i) else { continue }
            // A newer change came while the copies were made: it runs instead.
            guard request.generation == generation else { return }
            let scaled = PreviewScale.overrides(request.preset, copy: copy.size, original: copy.original)
            let key = scaled.map { "\($0.node).\($0.key)=\($0.to)" }.joined(separator: " ")
            let item = { (n: Int) in Item(index: n, name: request.items[i].name, source: copy.path, directory: request.items[i].directory) }
            if let g = groups.firstIndex(where: { $0.key == key }) {
                groups[g].items.append(item(groups[g].items.count))
            } else {
                groups.append((key, scaled, [item(0)]))
            }
            index[copy.path] = i
        }
        guard let first = groups.first, request.generation == generation else { return }
        lastScaled = first.scaled
        request.scaled(first.scaled)
        var started: [(run: PresetRun, root: String)] = []
        for (n, group) in groups.enumerated() {
            guard let preset = group.scaled.isEmpty ? request.preset : request.variant(group.scaled),
                  // Our own folder under the session's: if it cannot be made (a full disk), this group
                  // shows its last previews until the next change tries again.
                  let root = try? OutputRoot(folder + "/out-\(request.generation)-\(n)") else { continue }
            var options = RunOptions(workers: groups.count > 1 ? 1 : nil, eventDetail: .items)
            options.resultCache = results
            options.pool = pool
            started.append((PresetRun.start(preset, items: .list(group.items), output: root, options: options, logger: logger), root.path))
        }
        runs = started.map(\.run)
        runsStarted += 1
        let pages = index, generation = request.generation, ready = request.ready, shows = request.shows
        let summaries = await withTaskGroup(of: RunSummary.self) { tasks in
            for (run, root) in started {
                tasks.addTask {
                    for await event in run.events {
                        guard case .itemFinished(let report) = event,
                              let file = report.files.first(where: { shows.contains($0.node) }) ?? report.files.first,
                              let page = pages[report.item.source] else { continue }
                        await self.made(page, generation: generation, file: root + "/" + file.path, ready: ready)
                    }
                    return await run.result
                }
            }
            var all: [RunSummary] = []
            for await summary in tasks { all.append(summary) }
            return all
        }
        if generation == self.generation {
            runs = []
            lastNodesRun = summaries.reduce(0) { $0 + $1.nodesRun }
            finished = generation
        }
        ended(generation)
    }

    private func made(_ index: Int, generation: Int, file: String, ready: @Sendable (Int, Int) -> Void) {
        guard generation >= made[index]?.generation ?? 0 else { return }
        made[index] = (generation, file)
        ready(index, generation)
    }

    /// Folders of generations before `generation`, once nothing shows their files any more.
    private func ended(_ generation: Int) {
        let shown = Set(made.values.map { ($0.file as NSString).deletingLastPathComponent })
        // Tidying old generations: a folder that cannot be listed is left for remove() to take whole.
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
        for name in names where name.hasPrefix("out-") {
            guard let n = Int(name.dropFirst(4).split(separator: "-").first ?? ""), n < generation else { continue }
            let path = folder + "/" + name
            // Tidying: a folder that cannot be removed now is taken with the session's (remove()).
            if !shown.contains(where: { $0.hasPrefix(path) }) { try? FileManager.default.removeItem(atPath: path) }
        }
    }

    /// Forgets the previews (the preset was saved or changed in the editor).
    func reset() {
        generation += 1
        pending = nil
        for run in runs { run.cancel() }
        runs = []
        made = [:]
    }

    /// Removes the folder (the server is stopping).
    /// The `write` nodes downstream of `changed` (or `changed` itself), in `preset`.
    static func writes(downstreamOf changed: Set<String>, in preset: Preset) -> Set<String> {
        var touched = changed
        var writes = Set<String>()
        // Nodes come upstream first: one pass carries the change down.
        for node in preset.nodes where touched.contains(node.id) || node.copy.map({ touched.contains($0.declaredID) }) == true
            || node.inputs.contains(where: { touched.contains($0.node) }) {
            touched.insert(node.id)
            if node.op.name == "write" { writes.insert(node.id) }
        }
        return writes
    }

    func remove() {
        for run in runs { run.cancel() }
        // The session's temporary folder: gone already, or taken by the system's cleaning, either is fine.
        try? FileManager.default.removeItem(atPath: folder)
    }

    /// The item's input at screen size, made once: a local file decoded at the JPEG scale that
    /// covers `size` and written as a high-quality JPEG under the item's own name.
    private func copy(of item: Item, index: Int) async -> (path: String, size: PreviewScale.Size, original: PreviewScale.Size)? {
        if let copy = copies[index] { return copy }
        let source = item.source.hasPrefix("file://") ? URL(string: item.source)?.path : item.isURL ? nil : item.source
        guard let source else { return nil }
        let name = (source as NSString).lastPathComponent
        let base = (name as NSString).deletingPathExtension
        let copy = folder + "/inputs/\(index)/\(base).jpg"
        let size = self.size
        let made: Bool = await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                guard let data = VipsImage.preview(ofFile: source, size: size, quality: 92) else {
                    continuation.resume(returning: false)
                    return
                }
                let folder = (copy as NSString).deletingLastPathComponent
                // Failing to write the copy below says false to the caller; making its folder first
                // needs no error of its own.
                try? FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
                // Not written is `false` to the caller, which shows the item without its preview.
                continuation.resume(returning: (try? data.write(to: URL(fileURLWithPath: copy))) != nil)
            }
        }
        guard made, let small = VipsImage.summary(ofFile: copy), let large = VipsImage.summary(ofFile: source) else { return nil }
        // The original's sides in the copy's orientation (the copy is turned upright as the
        // decode turns the photo; its file's header may say the sides the other way round).
        let upright = PreviewScale.Size(width: Double(small.width), height: Double(small.height))
        let entry = (path: copy, size: upright, original: upright.scaled(Double(max(large.width, large.height)) / upright.edge))
        copies[index] = entry
        return entry
    }
}
