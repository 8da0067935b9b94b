import Foundation
import Testing
import WorkbenchCore
import WorkbenchTestSupport
import WorkbenchVips
@testable import WorkbenchServe

/// A `LiveSession` driven as the server drives it, without HTTP: real photos, a real preset
/// file, real runs through libvips.
@Suite(.serialized) struct LiveSessionTests {
    static let preset = #"""
        {
          "version": 1,
          "inputs": [],
          "output": "out",
          "graph": [
            { "id": "source", "op": "read" },
            { "id": "image", "op": "decode" },
            { "id": "thumb", "op": "thumbnail", "width": 96 },
            { "id": "tone", "op": "sepia", "intensity": 0.4 },
            { "id": "jpeg", "op": "encode", "format": "jpeg", "Q": 80 },
            { "id": "save", "op": "write", "path": "{name}.jpg" }
          ]
        }
        """#

    /// A session over four sample photos, one item at a time, with the preset in a new folder.
    static func session(grace: Double = 5) throws -> (LiveSession, folder: URL, preset: String) {
        let folder = try Fixtures.temporaryDirectory("session")
        let path = try Fixtures.writePreset(preset, in: folder)
        let photos = Fixtures.samplePhotos.prefix(4).map(\.path)
        let session = LiveSession(settings: .init(
            presetPath: path, inputs: photos, out: nil, workingDirectory: folder.path,
            registry: { OpRegistry(CoreOps.all, providers: [VipsOps.provider]) }, versions: { _ in [:] },
            concurrentItems: 1, offScreenGrace: grace, previewSize: 128))
        return (session, folder, path)
    }

    /// Ticks the session as the server does until `condition` holds of the board (or ten minutes
    /// pass: the runs report through Swift's shared pool, which other suites running at the same
    /// time may hold for minutes; a passing test takes well under a second).
    static func tick(_ session: LiveSession, until condition: (ItemBoard.Snapshot) -> Bool) async -> ItemBoard.Snapshot {
        let deadline = Date().addingTimeInterval(600)
        while Date() < deadline {
            await session.tick()
            if condition(session.board.snapshot) { break }
            try? await Task.sleep(nanoseconds: 50_000_000)
        }
        return session.board.snapshot
    }

    @Test func onlyWhatThePageShowsRunsAndVisibleItemsGoFirst() async throws {
        let (session, folder, _) = try Self.session()
        try await session.start()
        #expect(session.board.snapshot.rows.map(\.state).allSatisfy { $0 == .queued }, "\(session.board.snapshot.rows.map(\.state))")
        await session.setViewport(visible: [3], near: [1])
        // One run of the items, a job of the session's worker pool, fed what the page shows.
        #expect(session.pool?.runCount == 1)
        let board = await Self.tick(session) { $0.rows[3].state == .done && $0.rows[1].state == .done }
        #expect(board.rows[3].state == .done && board.rows[1].state == .done, "\(board.rows.map(\.state))")
        #expect(board.startOrder == [3, 1])
        // Items 0 and 2 were never shown: nothing of theirs ran or was written.
        let names = Fixtures.samplePhotos.prefix(4).map { $0.deletingPathExtension().lastPathComponent + ".jpg" }
        #expect(Fixtures.files(in: folder.appendingPathComponent("out")) == [names[1], names[3]].sorted())
        await session.finish()
        #expect(session.pool?.runCount == 0)
    }

    /// An encode with a quality target: each card says the quality its photo got, and its score;
    /// the target has a slider of its own.
    @Test func aCardSaysTheQualityATargetChoseAndTheTargetIsTunedLive() async throws {
        let folder = try Fixtures.temporaryDirectory("session-target")
        let path = try Fixtures.writePreset(Self.preset.replacingOccurrences(of: #""Q": 80"#, with: #""target": {"ssimulacra2": 75}"#), in: folder)
        let session = LiveSession(settings: .init(
            presetPath: path, inputs: Fixtures.samplePhotos.prefix(2).map(\.path), out: nil, workingDirectory: folder.path,
            registry: { OpRegistry(CoreOps.all, providers: [VipsOps.provider]) }, versions: { _ in [:] },
            concurrentItems: 1, offScreenGrace: 5, previewSize: 128))
        try await session.start()
        await session.setViewport(visible: [0, 1], near: [])
        let board = await Self.tick(session) { $0.rows.allSatisfy { $0.state == .done } }
        // The target is tuned live: a slider for its score, a change refused out of range,
        // one saved into the block and the cards made again to it.
        let controls = await session.controls()
        #expect(controls.contains(#""name": "target.ssimulacra2", "type": "number", "control": "slider", "min": 0.0, "max": 100.0"#), "\(controls)")
        #expect(controls.contains(#""value": 75.0,"#), "\(controls)")
        let refused = await session.setParameter(node: "jpeg", key: "target.ssimulacra2", json: "180")
        #expect(refused?.contains("target.ssimulacra2") == true, "\(refused ?? "accepted")")
        #expect(await session.setParameter(node: "jpeg", key: "target.ssimulacra2", json: "85") == nil)
        #expect(await session.controls().contains(#""value": 85, "changed": true"#))
        #expect(await session.save() == nil)
        #expect(try String(contentsOfFile: path, encoding: .utf8).contains(#""target": {"ssimulacra2": 85}"#))
        let again = await Self.tick(session) { board in
            board.rows.allSatisfy { row in row.state == .done && row.measured.flatMap { Double($0.split(separator: " ").last?.dropFirst().dropLast() ?? "") }.map { $0 >= 85 } == true }
        }
        for row in again.rows {
            let measured = try #require(row.measured, "\(row)")
            #expect(Double(measured.split(separator: " ").last?.dropFirst().dropLast() ?? "").map { $0 >= 85 } == true, "\(measured)")
        }
        for row in board.rows {
            let measured = try #require(row.measured, "\(row)")
            // "jpeg Q 62 (75.3)": a quality, and a score at or above the target.
            let parts = measured.split(separator: " ")
            #expect(parts.count == 4 && parts[0] == "jpeg" && parts[1] == "Q" && Int(parts[2]) != nil, "\(measured)")
            #expect(Double(parts[3].dropFirst().dropLast()).map { $0 >= 75 } == true, "\(measured)")
        }
        await session.finish()
    }

    /// A copy's value of its `foreach` variable is saved into the list: a value the list already
    /// holds would write a preset that does not validate, so the page refuses it and says why.
    @Test func aValueSaveCouldNotWriteIsRefusedInTheValidatorsWords() async throws {
        let folder = try Fixtures.temporaryDirectory("session-foreach")
        let path = try Fixtures.writePreset(#"""
            {"version": 1, "inputs": [], "output": "out",
             "graph": [{"id": "source", "op": "read"}, {"id": "image", "op": "decode"},
                       {"id": "thumb", "op": "thumbnail", "width": "{w}", "foreach": {"w": [96, 128, 160]}},
                       {"id": "jpeg", "op": "encode", "format": "jpeg"}, {"id": "save", "op": "write", "path": "{name}-{w}.jpg"}]}
            """#, in: folder)
        let session = LiveSession(settings: .init(
            presetPath: path, inputs: [Fixtures.samplePhotos[0].path], out: nil, workingDirectory: folder.path,
            registry: { OpRegistry(CoreOps.all, providers: [VipsOps.provider]) }, versions: { _ in [:] },
            concurrentItems: 1, offScreenGrace: 5, previewSize: 128))
        try await session.start()
        let refused = await session.setParameter(node: "thumb-128", key: "width", json: "96")
        #expect(refused?.contains("w lists 96 twice (at [0] and [1])") == true, "\(refused ?? "accepted")")
        #expect(await session.setParameter(node: "thumb-128", key: "width", json: "112") == nil)
        #expect(await session.save() == nil)
        #expect(try String(contentsOfFile: path, encoding: .utf8).contains(#""foreach": {"w": [96, 112, 160]}"#))
        await session.finish()
    }

    @Test func aRefusedValueSaysWhyAndASavedOneChangesOnlyItsBytes() async throws {
        let (session, _, path) = try Self.session()
        try await session.start()
        let refused = await session.setParameter(node: "tone", key: "intensity", json: "3")
        #expect(refused?.contains("graph[3].intensity") == true && refused?.contains("3") == true, "\(refused ?? "nil")")
        #expect(await session.setParameter(node: "save", key: "path", json: #""x.jpg""#)?.contains("no parameter") == true)
        #expect(await session.setParameter(node: "nothing", key: "intensity", json: "0.5") != nil)
        #expect(await session.draftCounts().changes == 0)

        #expect(await session.setParameter(node: "tone", key: "intensity", json: "0.75") == nil)
        #expect(await session.draftCounts().changes == 1)
        let before = try String(contentsOfFile: path, encoding: .utf8)
        #expect(await session.save() == nil)
        let after = try String(contentsOfFile: path, encoding: .utf8)
        #expect(after == before.replacingOccurrences(of: #""intensity": 0.4"#, with: #""intensity": 0.75"#))
        #expect(await session.draftCounts().changes == 0)

        // Revert forgets what was not saved; the file keeps what was.
        #expect(await session.setParameter(node: "jpeg", key: "Q", json: "60") == nil)
        await session.revert()
        #expect(await session.draftCounts().changes == 0)
        #expect(try String(contentsOfFile: path, encoding: .utf8) == after)
        await session.finish()
    }

    @Test func aSavedPresetIsReadAgainAndABrokenOneIsShownNotRun() async throws {
        let (session, _, path) = try Self.session()
        try await session.start()
        await session.setViewport(visible: [0], near: [])
        _ = await Self.tick(session) { $0.rows[0].state == .done }
        try Self.preset.replacingOccurrences(of: #""sepia""#, with: #""sepya""#).write(toFile: path, atomically: true, encoding: .utf8)
        var board = await Self.tick(session) { !$0.preset.ok }
        #expect(!board.preset.ok)
        #expect(board.preset.errors.joined().contains("sepya"), "\(board.preset.errors)")
        try Self.preset.replacingOccurrences(of: "96", with: "80").write(toFile: path, atomically: true, encoding: .utf8)
        board = await Self.tick(session) { $0.preset.ok && $0.rows[0].state == .done }
        #expect(board.preset.ok && board.rows[0].state == .done, "\(board.rows[0].state)")
        // Made again under the new preset (the broken one ran nothing), and counted once.
        #expect(board.startOrder == [0, 0])
        #expect(board.done == 1 && board.itemsPerSecond > 0, "\(board.done) done, \(board.itemsPerSecond) items/s")
        await session.finish()
    }

    @Test func anItemScrolledAwayIsCancelledAfterTheGraceAndRunsWhenItComesBack() async throws {
        let (session, _, _) = try Self.session(grace: 0)
        try await session.start()
        await session.setViewport(visible: [0], near: [])
        await session.setViewport(visible: [], near: [])
        var board = await Self.tick(session) { $0.cancelledOffScreen.contains(0) || $0.rows[0].state == .done }
        // Either it finished before it was scrolled away, or it was cancelled: never left half done.
        #expect(board.cancelledOffScreen.contains(0) || board.rows[0].state == .done, "\(board.rows[0].state)")
        await session.setViewport(visible: [0], near: [])
        board = await Self.tick(session) { $0.rows[0].state == .done }
        #expect(board.rows[0].state == .done)
        await session.finish()
    }
}
