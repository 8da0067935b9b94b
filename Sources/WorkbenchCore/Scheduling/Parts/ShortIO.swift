/// Which I/O bodies run on the CPU worker that made them ready instead of on an I/O thread.
///
/// Handing a body to an I/O thread and back costs two thread wake-ups and the lock twice more —
/// on this machine more than a `read` or `write` of a small file through the page cache takes
/// (a 160 px JPEG: ~10 µs to read, ~30 µs to write). I/O threads exist so that a body that
/// *waits* (a cold disk, a throttled write, a slow network volume) never holds a worker. So a
/// synchronous I/O node runs inline while its recent bodies are short, and goes back to the
/// threads as soon as they are not; its first body runs on a thread, as nothing is known yet.
/// Asynchronous stages (downloads) never run inline: they hold no thread at all.
struct ShortIO {
    /// Bodies averaging less than this (seconds) run inline.
    static let limit = 200e-6

    /// By node: a synchronous I/O node.
    private let inlineable: [Bool]
    /// By node: the moving average of its bodies' seconds; NaN until its first ends.
    private var average: [Double]

    init(inlineable: [Bool]) {
        self.inlineable = inlineable
        average = Array(repeating: .nan, count: inlineable.count)
    }

    /// Whether node `n`'s next body runs on the worker that made it ready.
    func runsInline(_ n: Int) -> Bool { inlineable[n] && average[n] < Self.limit }

    /// A body of node `n` took `seconds` (wherever it ran).
    mutating func note(_ n: Int, seconds: Double) {
        average[n] = average[n].isNaN ? seconds : average[n] * 0.75 + seconds * 0.25
    }
}
