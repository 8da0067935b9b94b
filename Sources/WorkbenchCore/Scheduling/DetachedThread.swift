import Foundation

/// Threads the scheduler starts itself. Foundation's `Thread.start()` says nothing when the system
/// refuses a thread (no address space left for its stack under `ulimit -v`, or too many
/// threads): the work meant for it then waits for ever. Here a refusal is an error the caller
/// turns into a message.
public enum DetachedThread {
    private final class Body {
        let name: String
        let run: @Sendable () -> Void
        init(name: String, run: @escaping @Sendable () -> Void) {
            self.name = name
            self.run = run
        }
    }

    /// Starts `body` on a new detached thread named `name` (the first 15 bytes show in `top`
    /// and debuggers).
    public static func start(name: String, _ body: @escaping @Sendable () -> Void) throws(SchedulerError) {
        var attributes = pthread_attr_t()
        pthread_attr_init(&attributes)
        defer { pthread_attr_destroy(&attributes) }
        pthread_attr_setdetachstate(&attributes, Int32(PTHREAD_CREATE_DETACHED))
        let context = Unmanaged.passRetained(Body(name: name, run: body)).toOpaque()
        var thread = pthread_t()
        let status = pthread_create(&thread, &attributes, { context in
            guard let context else { return nil }
            let body = Unmanaged<Body>.fromOpaque(context).takeRetainedValue()
            Thread.current.name = body.name
            body.run()
            return nil
        }, context)
        guard status == 0 else {
            Unmanaged<Body>.fromOpaque(context).release()
            throw .threadRefused(purpose: name, reason: String(cString: strerror(status)))
        }
    }
}
