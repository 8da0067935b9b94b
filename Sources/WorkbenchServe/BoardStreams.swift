import Foundation
import Synchronization

/// The page's event streams (server-sent events): who listens, and each message sent to all of
/// them. What the messages say is `ItemBoard`'s; this only delivers them.
final class BoardStreams: Sendable {
    private let listeners = Mutex<[UUID: AsyncStream<String>.Continuation]>([:])

    /// A new stream whose first message is `first` (made while nothing else is sent, so no change
    /// falls between it and the stream).
    func listen(first: () -> String) -> (id: UUID, stream: AsyncStream<String>) {
        let (stream, continuation) = AsyncStream.makeStream(of: String.self, bufferingPolicy: .bufferingNewest(256))
        let id = UUID()
        listeners.withLock { listeners in
            continuation.yield(first())
            listeners[id] = continuation
        }
        return (id, stream)
    }

    func stopListening(_ id: UUID) {
        listeners.withLock { $0.removeValue(forKey: id) }?.finish()
    }

    var count: Int { listeners.withLock { $0.count } }

    /// A comment line to every stream each second: a closed page shows as a failed write.
    func heartbeat() { broadcast([": ping\n\n"]) }

    /// Ends every stream (the server is stopping).
    func end() {
        for listener in listeners.withLock({ listeners -> [AsyncStream<String>.Continuation] in
            defer { listeners = [:] }
            return Array(listeners.values)
        }) { listener.finish() }
    }

    /// Sends one message to every page now: a preview is awaited.
    func send<Value: Encodable>(_ name: String, _ value: Value) { broadcast([Self.message(name, value)]) }

    /// `messages`, in order, to every stream.
    func broadcast(_ messages: [String]) {
        guard !messages.isEmpty else { return }
        for listener in listeners.withLock({ Array($0.values) }) { for message in messages { listener.yield(message) } }
    }

    /// One SSE message: `event: NAME` and the value as JSON on one `data:` line.
    static func message<Value: Encodable>(_ name: String, _ value: Value) -> String {
        "event: \(name)\ndata: \(json(value))\n\n"
    }

    /// The page's JSON of `value` (keys sorted, slashes bare), on one line: what the streams
    /// and the routes send alike.
    static func json<Value: Encodable>(_ value: Value) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        // Our own Encodable state: it always encodes ("null" only if a type ever could not).
        return (try? encoder.encode(value)).map { String(decoding: $0, as: UTF8.self) } ?? "null"
    }
}
