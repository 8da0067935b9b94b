import CVips
import CVipsBridge
import Foundation
import WorkbenchCore

/// Runs any libvips operation by nickname with named arguments: the generic call pyvips makes.
enum VipsOperationCall {
    /// Runs the operation. Cancelling `cancellation` stops an evaluation it starts (savers,
    /// measurements) at the next tile; the call then throws `.cancelled`.
    static func run(_ info: VipsOperationInfo, _ arguments: [(VipsArgumentInfo, VipsArgumentValue)],
                    cancellation: CancellationToken? = nil, progress: (@Sendable (Int, Int) -> Void)? = nil) throws(VipsError) -> VipsCallOutputs {
        guard cancellation != nil || progress != nil else { return try run(info, arguments) }
        let images = arguments.flatMap { argument -> [VipsImage] in
            switch argument.1 {
            case .image(let image): return [image]
            case .images(let images): return images
            default: return []
            }
        }
        return try evaluating(images, cancellation: cancellation, progress: progress) { () throws(VipsError) in try run(info, arguments) }
    }

    /// Runs `body`, which evaluates `images` (or images made from them); cancelling
    /// `cancellation` stops that evaluation at its next tile, and the call throws `.cancelled`.
    /// `progress`, if given, hears (pixels done, pixels in all) once per percent.
    static func evaluating<T>(_ images: [VipsImage], cancellation: CancellationToken?,
                              progress: (@Sendable (Int, Int) -> Void)? = nil,
                              _ body: () throws(VipsError) -> T) throws(VipsError) -> T {
        let watch = progress.map { ProgressWatch(images, $0) }
        defer { watch?.disarm() }
        guard let cancellation else { return try body() }
        if cancellation.isCancelled { throw .cancelled }
        let kill = KillSwitch(images)
        let key = cancellation.onCancel { kill.pull() }
        defer {
            cancellation.removeHandler(key)
            kill.disarm()
        }
        let result: T
        do {
            result = try body()
        } catch {
            throw cancellation.isCancelled ? .cancelled : error
        }
        if cancellation.isCancelled { throw .cancelled }
        return result
    }

    /// Runs the call; a failure's message is the call's own even when other calls ran beside
    /// it (then it is run again alone, see `VipsErrorLog`). Savers are not run again here: a
    /// failed evaluation may leave a loader upstream refusing to start over, so `encode` finds
    /// its cause from the source instead.
    private static func run(_ info: VipsOperationInfo, _ arguments: [(VipsArgumentInfo, VipsArgumentValue)]) throws(VipsError) -> VipsCallOutputs {
        let (result, clean) = attempt(info, arguments)
        guard case .failure(let error) = result, case .operationFailed = error, !info.isSaver else { return try result.get() }
        // An operation that reads pixels as it is built (a smart crop measures them) fails on
        // damage in the decode upstream: then that is the error, in the decoder's words. Run
        // again, a streamed decode that failed once fails with no message at all.
        let origin = arguments.lazy.compactMap { if case .image(let image) = $0.1 { return image.origin } else { return nil } }.first
        if let damage = DamageCheck.damage(of: origin, after: error) { throw damage }
        if !clean {
            return try VipsErrorLog.alone { () throws(VipsError) in try attempt(info, arguments).0.get() }
        }
        throw error
    }

    private static func attempt(_ info: VipsOperationInfo, _ arguments: [(VipsArgumentInfo, VipsArgumentValue)])
        -> (Result<VipsCallOutputs, VipsError>, clean: Bool) {
        do {
            try VipsRuntime.start()
            for case .image(let image) in arguments.map(\.1) { try image.checkSane(for: info.nickname) }
            for case .images(let images) in arguments.map(\.1) { for image in images { try image.checkSane(for: info.nickname) } }
        } catch {
            return (.failure(error), true)
        }
        let nick = info.nickname
        guard let created = vips_operation_new(nick) else {
            return (.failure(.operationFailed(operation: nick, message: VipsImage.takeErrorMessage())), true)
        }
        var operation: UnsafeMutablePointer<VipsOperation>? = created
        for (argument, value) in arguments {
            do throws(VipsError) {
                try set(argument, value, on: created)
            } catch {
                cvips_operation_unref(created)
                return (.failure(error), true)
            }
        }
        // Building with a required input unset aborts the process inside libvips: check first.
        if let missing = info.arguments.first(where: {
            $0.isInput && $0.isRequired && vips_object_argument_isset(cvips_operation_object(created), $0.property) == 0
        }) {
            cvips_operation_unref(created)
            return (.failure(.operationFailed(operation: nick, message: "required argument \"\(missing.name)\" is not set")), true)
        }
        let (status, record) = VipsErrorLog.record({ cvips_guarded_buildp(&operation) }, failed: { $0 != 0 })
        if status == -2 { return (.failure(.aborted(operation: nick)), true) } // the half-built operation is left alone
        guard status == 0, let built = operation else {
            if let operation {
                VipsRelease.run {
                    vips_object_unref_outputs(cvips_operation_object(operation))
                    cvips_operation_unref(operation)
                }
            }
            return (.failure(.operationFailed(operation: nick, message: record.message ?? "libvips gave no message")), record.clean)
        }
        defer {
            VipsRelease.run {
                vips_object_unref_outputs(cvips_operation_object(built))
                cvips_operation_unref(built)
            }
        }
        var outputs = VipsCallOutputs(warnings: record.warnings, clean: record.clean)
        for argument in info.arguments where argument.isOutput && argument.isRequired {
            read(argument, of: built, into: &outputs)
        }
        // What came out keeps the decode it was made from, for telling damage apart later, and
        // is one operation deeper than its deepest input.
        let origin = arguments.lazy.compactMap { if case .image(let image) = $0.1 { return image.origin } else { return nil } }.first
        let inputs = arguments.flatMap { argument -> [VipsImage] in
            switch argument.1 {
            case .image(let image): return [image]
            case .images(let images): return images
            default: return []
            }
        }
        let depth = (inputs.map(\.depth).max() ?? -1) + 1
        outputs.images = outputs.images.mapValues { $0.relabelled(origin: origin ?? $0.origin, depth: depth) }
        return (.success(outputs), record.clean)
    }

    private static func set(_ argument: VipsArgumentInfo, _ value: VipsArgumentValue,
                            on operation: UnsafeMutablePointer<VipsOperation>) throws(VipsError) {
        var gvalue = GValue()
        g_value_init(&gvalue, argument.type)
        defer { g_value_unset(&gvalue) }
        switch value {
        case .bool(let b): g_value_set_boolean(&gvalue, b ? 1 : 0)
        case .int(let i): g_value_set_int(&gvalue, Int32(clamping: i))
        case .uint64(let u): g_value_set_uint64(&gvalue, guint64(u))
        case .double(let d): g_value_set_double(&gvalue, d)
        case .string(let s): g_value_set_string(&gvalue, s)
        case .enumeration(let e): g_value_set_enum(&gvalue, Int32(clamping: e))
        case .flags(let f): g_value_set_flags(&gvalue, UInt32(truncatingIfNeeded: f))
        case .image(let image): cvips_value_set_image(&gvalue, image.pointer)
        case .images(let images):
            var pointers: [UnsafeMutablePointer<CVips.VipsImage>?] = images.map(\.pointer)
            pointers.withUnsafeMutableBufferPointer { cvips_value_set_images(&gvalue, $0.baseAddress, Int32($0.count)) }
            withExtendedLifetime(images) {}
        case .ints(let list):
            let values = list.map { Int32(clamping: $0) }
            values.withUnsafeBufferPointer { vips_value_set_array_int(&gvalue, $0.baseAddress, Int32($0.count)) }
        case .doubles(let list):
            list.withUnsafeBufferPointer { vips_value_set_array_double(&gvalue, $0.baseAddress, Int32($0.count)) }
        case .blob(let data):
            setBlob(data, on: &gvalue)
        case .interpolate(let name):
            guard let interpolate = vips_interpolate_new(name) else {
                vips_error_clear()
                throw .operationFailed(operation: argument.name, message: "unknown interpolator \"\(name)\"")
            }
            cvips_value_set_interpolate(&gvalue, interpolate)
            cvips_object_unref(interpolate)
        }
        g_object_set_property(cvips_operation_gobject(operation), argument.property, &gvalue)
    }

    private static func read(_ argument: VipsArgumentInfo, of operation: UnsafeMutablePointer<VipsOperation>,
                             into outputs: inout VipsCallOutputs) {
        var gvalue = GValue()
        g_value_init(&gvalue, argument.type)
        defer { g_value_unset(&gvalue) }
        g_object_get_property(cvips_operation_gobject(operation), argument.property, &gvalue)
        switch argument.kind {
        case .image:
            if let image = cvips_value_dup_image(&gvalue) { outputs.images[argument.name] = VipsImage(owning: image) }
        case .blob:
            var length = 0
            if let data = cvips_value_blob_data(&gvalue, &length) { outputs.blobs[argument.name] = Data(bytes: data, count: length) }
        case .bool: outputs.values[argument.name] = g_value_get_boolean(&gvalue) != 0
        case .int: outputs.values[argument.name] = Int(g_value_get_int(&gvalue))
        case .uint64: outputs.values[argument.name] = UInt64(g_value_get_uint64(&gvalue))
        case .double: outputs.values[argument.name] = g_value_get_double(&gvalue)
        case .string: outputs.values[argument.name] = g_value_get_string(&gvalue).map { String(cString: $0) } ?? ""
        case .enumeration(let values, _):
            let raw = Int(g_value_get_enum(&gvalue))
            outputs.values[argument.name] = values.nick(of: raw) ?? String(raw)
        case .doubles:
            var count: Int32 = 0
            if let array = vips_value_get_array_double(&gvalue, &count) {
                outputs.values[argument.name] = Array(UnsafeBufferPointer(start: array, count: Int(count)))
            }
        case .ints:
            var count: Int32 = 0
            if let array = vips_value_get_array_int(&gvalue, &count) {
                outputs.values[argument.name] = UnsafeBufferPointer(start: array, count: Int(count)).map { Int($0) }
            }
        default:
            break
        }
    }

    /// The bytes as a blob libvips reads in place, keeping them alive until it lets go: a
    /// loader holds its input as long as its image, and a copy per decode was the largest
    /// allocation of a batch after the pixels. Small `Data` keeps its bytes inline (a pointer
    /// to them lasts only as long as the closure), so those are copied.
    private static func setBlob(_ data: Data, on gvalue: inout GValue) {
        guard data.count >= 4096 else {
            data.withUnsafeBytes { cvips_value_set_blob_copy(&gvalue, $0.baseAddress, $0.count) }
            return
        }
        let owner = Unmanaged.passRetained(BlobOwner(data)).toOpaque()
        // A `Data` this large lives in storage of its own, which stays where it is while the
        // owner holds it unchanged.
        data.withUnsafeBytes {
            cvips_value_set_blob_borrowing(&gvalue, $0.baseAddress, $0.count, owner) { owner in
                if let owner { Unmanaged<BlobOwner>.fromOpaque(owner).release() }
            }
        }
    }

    /// Runs operation `nick` with `input` as its image input and other arguments by libvips name;
    /// returns its output image. What the friendly filters are made of.
    /// Cancelling `cancellation` stops an evaluation the operation starts as it is built
    /// (smartcrop's measurement, for one).
    static func image(_ nick: String, _ input: VipsImage?, _ named: [String: VipsArgumentValue] = [:],
                      cancellation: CancellationToken? = nil) throws(VipsError) -> VipsImage {
        let (info, outputs) = try outputs(nick, input, named, cancellation: cancellation)
        guard let output = info.arguments.first(where: { $0.isOutput && $0.isRequired && $0.kind.isImage }),
              let image = outputs.images[output.name] else {
            throw .operationFailed(operation: nick, message: "it returned no image")
        }
        return image
    }

    /// Runs operation `nick` as `image` does and returns all it gives (a saver's blob, say).
    static func outputs(_ nick: String, _ input: VipsImage?, _ named: [String: VipsArgumentValue] = [:],
                        cancellation: CancellationToken? = nil) throws(VipsError) -> (info: VipsOperationInfo, outputs: VipsCallOutputs) {
        guard let info = VipsIntrospection.operation(nick) else {
            throw .operationFailed(operation: nick, message: "this libvips has no such operation")
        }
        var arguments: [(VipsArgumentInfo, VipsArgumentValue)] = []
        if let input, let main = info.mainInput { arguments.append((main, .image(input))) }
        for (name, value) in named {
            guard let argument = info.arguments.first(where: { $0.name == name && $0.isInput }) else {
                throw .operationFailed(operation: nick, message: "no argument \"\(name)\"")
            }
            // Enum values may be given by nickname, as in presets.
            if case .enumeration(let values, _) = argument.kind, case .string(let nick) = value {
                guard let raw = values.value(of: nick) else {
                    throw .operationFailed(operation: nick, message: "\"\(nick)\" is not a value of \"\(name)\"")
                }
                arguments.append((argument, .enumeration(raw)))
            } else {
                arguments.append((argument, value))
            }
        }
        return (info, try run(info, arguments, cancellation: cancellation))
    }

    /// A libvips matrix image from rows of numbers (masks for `conv`, matrices for `recomb`).
    /// libvips' convolutions divide by `scale` and add `offset`.
    static func matrix(_ rows: [[Double]], scale: Double = 1, offset: Double = 0) throws(VipsError) -> VipsImage {
        let width = rows.first?.count ?? 0
        let cells = rows.flatMap { $0 }
        let (made, message) = VipsErrorLog.call({
            cells.withUnsafeBufferPointer {
                vips_image_new_matrix_from_array(Int32(width), Int32(rows.count), $0.baseAddress, Int32($0.count))
            }
        }, failed: { $0 == nil })
        guard let made else { throw .operationFailed(operation: "matrix", message: message ?? "libvips gave no message") }
        vips_image_set_double(made, "scale", scale)
        vips_image_set_double(made, "offset", offset)
        return VipsImage(owning: made)
    }
}

/// Stops the evaluations of a set of images when pulled: sets libvips' kill flag on them now,
/// and again from their "eval" handlers, since a sink clears the flag when it starts.
private final class KillSwitch: @unchecked Sendable {
    // Safe: `flag` is written and read only with C atomics (cvips_raise_flag and the eval
    // handler); `handlers` is touched only by the thread that runs the call (init and disarm).
    private let flag: UnsafeMutablePointer<Int32>
    private let images: [VipsImage]
    private var handlers: [gulong] = []

    init(_ images: [VipsImage]) {
        self.images = images
        flag = .allocate(capacity: 1)
        flag.initialize(to: 0)
        handlers = images.map { cvips_watch_kill_flag($0.pointer, flag) }
    }

    func pull() {
        cvips_raise_flag(flag)
        for image in images { vips_image_set_kill(image.pointer, 1) }
    }

    /// Disconnects the handlers; the flag itself lives as long as this object.
    func disarm() {
        for (image, handler) in zip(images, handlers) { cvips_unwatch(image.pointer, handler) }
        handlers = []
    }

    deinit { flag.deallocate() }
}

/// Forwards libvips' progress of evaluating a set of images to a closure, once per percent.
private final class ProgressWatch: @unchecked Sendable {
    // Safe: `watch` is written in init, then only by libvips' handler with C atomics;
    // `handlers` is touched only by the thread that runs the call (init and disarm).
    private let watch: UnsafeMutablePointer<cvips_progress_watch>
    private let images: [VipsImage]
    private let report: @Sendable (Int, Int) -> Void
    private var handlers: [gulong] = []

    init(_ images: [VipsImage], _ report: @escaping @Sendable (Int, Int) -> Void) {
        self.images = images
        self.report = report
        watch = .allocate(capacity: 1)
        let handler: cvips_progress_handler = { context, done, total in
            guard let context else { return }
            Unmanaged<ProgressWatch>.fromOpaque(context).takeUnretainedValue().report(Int(done), Int(total))
        }
        watch.initialize(to: cvips_progress_watch(handler: handler, context: nil, last_percent: -1))
        watch.pointee.context = UnsafeRawPointer(Unmanaged.passUnretained(self).toOpaque())
        handlers = images.map { cvips_watch_progress($0.pointer, watch) }
    }

    func disarm() {
        for (image, handler) in zip(images, handlers) { cvips_unwatch(image.pointer, handler) }
        handlers = []
    }

    deinit { watch.deallocate() }
}

/// Keeps the bytes of a blob libvips borrows alive until libvips lets go.
private final class BlobOwner {
    let data: Data

    init(_ data: Data) { self.data = data }
}
