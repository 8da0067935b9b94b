import Foundation
import Logging
import WorkbenchCore
import WorkbenchReports

/// A preset run live for a page, on one long-lived `WorkerPool` whose jobs are everything the page
/// asks for: one run of the preset's items, fed the items the page shows (`ItemFeed`) in its
/// order — visible items raised to `userInteractive`, those just out of view `userInitiated`,
/// items scrolled away lowered to `background` and, after `offScreenGrace` seconds, cancelled
/// (they are fed again when they come back) — the previews of unsaved values, and the run that
/// gathers every item (a contact sheet). The preset file is watched: a saved change is checked,
/// and items run again as they are looked at, the manifest skipping every file whose recipe
/// did not change.
public actor LiveSession {
    let settings: Settings
    nonisolated let board: ItemBoard
    private let logger = Logger(label: "workbench.serve")
    /// The workers every run of the session shares; nil when not even one thread could be had
    /// (each run then starts threads of its own, as the command line's does).
    nonisolated let pool: WorkerPool?
    private(set) var preset: Preset?
    private(set) var items: [Item] = []
    /// The output root, once a preset was read.
    private(set) var root: OutputRoot?
    private var manifest: RunManifest?
    private(set) var visible: [Int] = []
    private var near: [Int] = []
    /// The run of the preset's items (its item part, for a preset that gathers), and what feeds it.
    private var itemRun: PresetRun?
    private var feed: ItemFeed?
    /// Items made (or failed) under the current preset: not fed again until it changes.
    private var made = Set<Int>()
    /// Items the run holds that the page scrolled away, and since when.
    private var offScreen: [Int: Date] = [:]
    /// Bumped when the preset is read again: what runs of an older one say is over.
    private var generation = 0
    private var presetStamp: Data?
    /// The item part of a preset that gathers every item (a contact sheet), and the run of the
    /// whole preset that makes the sheet once every item is made.
    private var gathering: GatheringSplit?
    private var wholeRun: PresetRun?
    private var wholeRunGeneration = -1
    /// Run-scope results, shared by every run of the session (kept by recipe, so they outlive
    /// edits that leave them alone).
    private let runScope = ResultCache(reach: .runScope)
    /// Values changed on the page and not saved, in the order they were set (one per node
    /// and key): applied over the file's for previews, written into it by `save`.
    var draft: [PresetOverride] = []
    nonisolated let previews: DraftPreviews

    public init(settings: Settings) {
        self.settings = settings
        board = ItemBoard(presetFile: settings.presetPath)
        // Without a thread for the shared pool, runs start their own (see `pool`).
        let pool = try? WorkerPool()
        self.pool = pool
        previews = DraftPreviews(size: settings.previewSize, pool: pool)
    }

    /// The folder files are written to (and served from).
    public var outputRoot: String? { root?.path }

    /// The item's local input file, if it has one (for previews).
    func inputFile(_ index: Int) -> String? {
        guard items.indices.contains(index) else { return nil }
        let source = items[index].source
        if source.hasPrefix("file://") { return URL(string: source)?.path }
        return items[index].isURL ? nil : source
    }

    /// Reads the preset for the first time; a preset that cannot be read stops `serve`.
    public func start() async throws {
        presetStamp = Self.stamp(settings.presetPath)
        if let problem = await load() { throw ServeError.badPreset(problem) }
    }

    /// (Re)reads the preset and its inputs. Returns the problem, if any (shown on the page).
    @discardableResult
    private func load() async -> String? {
        let loaded: Preset
        let list: [Item]
        let split: GatheringSplit?
        do {
            loaded = try PresetLoader(registry: settings.registry()).load(file: settings.presetPath)
            if let refusal = settings.inputs.lazy.compactMap(loaded.refusal(ofInput:)).first { throw ServeError.badPreset(refusal + ".") }
            let source = settings.inputs.isEmpty ? try InputExpansion.source(of: loaded, remote: settings.remote)
                : .list(try InputExpansion.expand(settings.inputs, relativeTo: settings.workingDirectory))
            var all: [Item] = []
            let iterator = source.makeIterator()
            while let item = iterator.next() { all.append(item) }
            list = all
            split = try GatheringSplit.of(loaded, file: settings.presetPath, registry: settings.registry())
            try settings.prepare(loaded)
        } catch {
            let message = "\(error)"
            board.presetFailed(.init(file: settings.presetPath, ok: false, errors: message.split(separator: "\n").map(String.init), graph: ""))
            return message
        }
        // Runs of the old preset end first: their manifest lets its lock go.
        await stopAll()
        saveManifest()
        manifest = nil
        do {
            let root = try OutputRoot(settings.out ?? loaded.outputFolder ?? settings.workingDirectory)
            self.root = root
            manifest = try RunManifest(preset: loaded, output: root, versions: settings.versions(loaded), endsWithRun: false)
        } catch {
            let message = "\(error)"
            board.presetFailed(.init(file: settings.presetPath, ok: false, errors: [message], graph: ""))
            return message
        }
        preset = loaded
        gathering = split
        wholeRunGeneration = -1
        items = list
        generation += 1
        made = []
        await previews.reset()
        board.streams.send("draft", DraftState(changes: draft.count, note: draft.isEmpty ? nil
            : "The preset file changed in the editor. Save writes your \(draft.count) change\(draft.count == 1 ? "" : "s") from this page into it, value by value, keeping the editor's; Revert takes the file as it is now."))
        board.reset(items: list, preset: .init(file: settings.presetPath, ok: true, errors: [],
                                               graph: GraphRenderer(loaded).tree(maxLines: 60).lines.joined(separator: "\n")),
                    ops: Dictionary(loaded.nodes.map { ($0.id, $0.op.name) }, uniquingKeysWith: { a, _ in a }))
        feedWanted()
        return nil
    }

    /// What the page shows now: `visible` first, `near` (just out of view) next, in the page's order.
    public func setViewport(visible: [Int], near: [Int]) {
        self.visible = visible.filter { items.indices.contains($0) }
        self.near = near.filter { items.indices.contains($0) && !visible.contains($0) }
        if let run = itemRun, let feed {
            let wanted = Set(self.visible + self.near)
            for index in feed.taken {
                if wanted.contains(index) {
                    offScreen[index] = nil
                    run.prioritize(item: index, to: self.visible.contains(index) ? .userInteractive : .userInitiated)
                } else if offScreen[index] == nil {
                    run.prioritize(item: index, to: .background)
                    offScreen[index] = Date()
                    board.offScreen(index, cancelled: false)
                }
            }
        }
        feedWanted()
    }

    /// Every 100 ms: the preset file, the off-screen deadline, the page's updates.
    public func tick() async {
        let stamp = Self.stamp(settings.presetPath)
        if stamp != presetStamp {
            presetStamp = stamp
            // Under --verbose only: the page shows the new preset itself, and a test log stays results only.
            logger.debug("\(settings.presetPath) changed: reading it again")
            let problem = await load()
            logger.debug("\(settings.presetPath) read again\(problem == nil ? "" : ", with problems the page shows")")
        }
        let now = Date()
        for (index, since) in offScreen where now.timeIntervalSince(since) > settings.offScreenGrace {
            offScreen[index] = nil
            itemRun?.cancel(item: index)
            board.offScreen(index, cancelled: true)
        }
        board.flush()
    }

    /// The page went away (no event stream left): everything running stops; what it had not
    /// finished runs again when a page asks for it.
    public func pageClosed() async {
        board.closed(feed.map { Array($0.taken).sorted() } ?? [])
        visible = []
        near = []
        await stopAll()
    }

    /// An event stream ended: when none is left a moment later (not a reload), the page was closed.
    public func listenerLeft() async {
        guard board.streams.count == 0 else { return }
        // Cancelled (the server stopping): the check below runs once more, harmlessly.
        try? await Task.sleep(nanoseconds: 1_500_000_000)
        if board.streams.count == 0 && itemRun != nil { await pageClosed() }
    }

    /// Stops the runs, writes the manifest and lets its lock go, and lets the pool's workers
    /// go (the server is stopping).
    public func finish() async {
        await stopAll()
        saveManifest()
        manifest = nil
        await previews.remove()
        pool?.shutDown()
    }

    /// Writes the manifest; a failure is said (the next run makes those files again), not dropped.
    private func saveManifest() {
        do {
            try manifest?.store.save()
        } catch {
            logger.error("The manifest in \(root?.path ?? "the output folder") could not be written: \(error). The files made stay; the next run makes them again.")
            board.streams.send("notice", ["text": "The manifest could not be written: \(error)"])
        }
    }

    private func stopAll() async {
        let runs = [itemRun, wholeRun].compactMap { $0 }
        itemRun = nil
        feed = nil
        wholeRun = nil
        offScreen = [:]
        for run in runs { run.cancel() }
        // What was stopped is not made: it is fed again when a page asks for it.
        for run in runs { _ = await run.result }
        board.setRunning(false)
    }

    /// Feeds the run the items the page wants that are not made, starting the run if none is
    /// under way; with every item made, the feed closes and a preset that gathers makes its sheet.
    private func feedWanted() {
        guard let preset, let root, let manifest else { return }
        if made.count == items.count {
            feed?.close()
            startWholeRunIfDue()
            return
        }
        let wanted = (visible + near).filter { !made.contains($0) }
        if itemRun == nil && !wanted.isEmpty {
            let board = self.board
            let feed = ItemFeed(onTake: { item in
                board.itemStarting(item.index)
                Task { await self.took(item.index) }
            })
            var options = RunOptions(window: settings.concurrentItems, eventDetail: .nodes)
            options.resultCache = runScope
            options.services = settings.services
            options.pool = pool
            let run = PresetRun.start(gathering?.itemPreset ?? preset, items: .feed(feed), output: root,
                                      options: options, manifest: manifest, logger: logger)
            itemRun = run
            self.feed = feed
            Task.detached {
                for await event in run.events {
                    board.apply(event)
                    if case .itemFinished(let report) = event { await self.ended(report.item.index, status: report.status, run: run) }
                }
                _ = await run.result
                await self.itemRunEnded(run)
            }
        }
        feed?.setWaiting(wanted.map { items[$0] })
        board.setRunning(itemRun != nil || wholeRun != nil)
    }

    /// The run took an item: raised if the page shows it (it came in at the preset's QoS).
    private func took(_ index: Int) {
        if visible.contains(index) {
            itemRun?.prioritize(item: index, to: .userInteractive)
        } else if near.contains(index) {
            itemRun?.prioritize(item: index, to: .userInitiated)
        }
    }

    /// An item of the run ended; one cancelled (off screen) is not made, and is fed again when
    /// it is looked at.
    private func ended(_ index: Int, status: ItemReport.Status, run: PresetRun) {
        guard itemRun === run else { return }
        feed?.release(index)
        offScreen[index] = nil
        if status != .cancelled { made.insert(index) }
        feedWanted()
    }

    private func itemRunEnded(_ run: PresetRun) {
        guard itemRun === run else { return }
        itemRun = nil
        feed = nil
        feedWanted()
        board.setRunning(wholeRun != nil)
    }

    /// For a preset that gathers: once every item is made under this version of the preset and
    /// the items' run has ended, one run of the whole preset makes what gathers them (its items
    /// up to date by then).
    private func startWholeRunIfDue() {
        guard gathering != nil, let preset, let root, let manifest, itemRun == nil, wholeRun == nil,
              wholeRunGeneration != generation else { return }
        wholeRunGeneration = generation
        var options = RunOptions(eventDetail: .nodes)
        options.resultCache = runScope
        options.services = settings.services
        options.pool = pool
        let run = PresetRun.start(preset, items: .list(items), output: root, options: options, manifest: manifest, logger: logger)
        wholeRun = run
        let board = self.board
        Task.detached {
            // The items' rows keep what their own runs said; the page hears of the gathering nodes.
            for await event in run.events {
                if case .node(let node) = event, node.item == .run { board.apply(event) }
            }
            _ = await run.result
            await self.wholeRunEnded(run)
        }
    }

    private func wholeRunEnded(_ run: PresetRun) {
        guard wholeRun === run else { return }
        wholeRun = nil
        board.setRunning(itemRun != nil)
    }

    /// The file's bytes, to notice a saved file. Not its modification time and size: two saves
    /// of the same length within one tick of the kernel's coarse clock (4 ms) look the same, and
    /// the second would never be read.
    private static func stamp(_ path: String) -> Data? {
        FileManager.default.contents(atPath: path)
    }
}
