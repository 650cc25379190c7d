import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Parent-based sampling with a ratio: a span with a parent follows the parent's sampled flag; a
/// root is sampled with probability `ratio` (0 ... 1).
public struct Sampler: Sendable, Hashable {
    /// The share of roots sampled.
    public let ratio: Double
    /// A root is sampled when a uniform 64-bit draw is below this (`ratio` · 2⁶⁴, saturated).
    let threshold: UInt64
    let always: Bool

    public init(ratio: Double) {
        let clamped = ratio.isNaN ? 0 : min(max(ratio, 0), 1)
        self.ratio = clamped
        always = clamped >= 1
        threshold = clamped >= 1 ? .max : UInt64(clamped * 18_446_744_073_709_551_616.0)
    }

    /// Whether a root with the uniform draw `draw` is sampled.
    public func samplesRoot(draw: UInt64) -> Bool {
        always || draw < threshold
    }

    /// Whether a span under `parent` (nil for a root, with the draw `draw`) is sampled.
    public func samples(parent: TraceContext?, draw: UInt64) -> Bool {
        if let parent { return parent.isSampled }
        return samplesRoot(draw: draw)
    }
}

/// A process's tracing: its service name, sampler and exporter. Installed once at start
/// (``Tracing/install(_:)``); the transport and the services read it from there.
public final class Tracer: Sendable {
    public let service: String
    public let sampler: Sampler
    public let exporter: SpanExporter?
    /// A counter mixed into each root draw (cheaper than a system random number per call).
    private let draws = Atomic<UInt64>(0)
    private let seed: UInt64

    private let passesUnsampledOn: Bool?

    /// A tracer; `propagatesUnsampled` overrides ``propagatesUnsampled``'s default.
    public init(service: String, sampler: Sampler, exporter: SpanExporter?, propagatesUnsampled: Bool? = nil)
    {
        self.service = service
        self.sampler = sampler
        self.exporter = exporter
        passesUnsampledOn = propagatesUnsampled
        var generator = SystemRandomNumberGenerator()
        seed = generator.next()
    }

    /// A uniform 64-bit draw (SplitMix64 over a shared counter).
    public func draw() -> UInt64 {
        var z = seed &+ draws.wrappingAdd(0x9E37_79B9_7F4A_7C15, ordering: .relaxed).newValue
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// The context of a new root span, if the sampler takes it; else nil (nothing is recorded).
    /// `forced`: the caller asked for a trace, sampled whatever the ratio.
    public func startRoot(forced: Bool = false) -> TraceContext? {
        guard forced || sampler.samplesRoot(draw: draw()) else { return nil }
        return .newTrace(sampled: true)
    }

    /// Whether calls made for work the sampler did not take pass an unsampled `traceparent` on, so
    /// that the services they reach follow the decision instead of making their own: on when
    /// tracing is in use (a ratio above 0, or somewhere to export to), off otherwise, so that a
    /// process that does not trace sends nothing it did not send before.
    public var propagatesUnsampled: Bool { passesUnsampledOn ?? (sampler.ratio > 0 || exporter != nil) }

    /// Records a finished span, if it is sampled (never waits).
    public func record(_ span: Span) {
        guard span.context.isSampled, let exporter else { return }
        exporter.submit(span)
    }
}

/// The process's tracer and the trace context of the work running on the current thread.
public enum Tracing {
    private static let installed = Mutex<Tracer?>(nil)
    private static let enabled = Atomic<Bool>(false)

    /// Makes `tracer` the process's tracer (nil turns tracing off).
    public static func install(_ tracer: Tracer?) {
        installed.withLock { $0 = tracer }
        enabled.store(tracer != nil, ordering: .releasing)
    }

    /// The process's tracer, if tracing is on. One atomic load when it is off.
    @inline(__always)
    public static var tracer: Tracer? {
        guard enabled.load(ordering: .acquiring) else { return nil }
        return installed.withLock { $0 }
    }

    /// The trace context of the call the current thread is handling, if it is in one.
    public static var current: TraceContext? {
        get { ThreadScope.box()?.context }
        set {
            guard newValue != nil || ThreadScope.hasBox else { return }
            let box = ThreadScope.box(creating: true)
            box?.context = newValue
            box?.span = nil
        }
    }

    /// The span of this process the current thread works in, if it is in one (calls made now are
    /// held by it and record their hops in it).
    public static var currentSpan: ActiveSpan? { ThreadScope.box()?.span }

    /// Runs `body` with `context` (and `span`, the span of this process it belongs to) as the
    /// current trace context, then restores the one before.
    @inline(__always)
    public static func with<Result>(
        _ context: TraceContext?, span: ActiveSpan? = nil, _ body: () throws -> Result
    ) rethrows -> Result {
        guard context != nil || ThreadScope.hasBox else { return try body() }
        let box = ThreadScope.box(creating: true)
        let saved = box?.context
        let savedSpan = box?.span
        box?.context = context
        box?.span = span
        defer {
            box?.context = saved
            box?.span = savedSpan
        }
        return try body()
    }

    /// Runs `body` in `span` (its context and the span itself).
    @inline(__always)
    public static func with<Result>(_ span: ActiveSpan, _ body: () throws -> Result) rethrows -> Result {
        try with(span.context, span: span, body)
    }
}

/// Per-thread storage of the current trace context: one box per thread, made the first time a
/// thread handles a traced call.
enum ThreadScope {
    final class Box {
        var context: TraceContext?
        var span: ActiveSpan?
    }

    private static let key: pthread_key_t = {
        var key = pthread_key_t()
        pthread_key_create(&key) { pointer in
            guard let pointer else { return }
            Unmanaged<Box>.fromOpaque(pointer).release()
        }
        return key
    }()

    static var hasBox: Bool { pthread_getspecific(key) != nil }

    static func box(creating: Bool = false) -> Box? {
        if let pointer = pthread_getspecific(key) {
            return Unmanaged<Box>.fromOpaque(pointer).takeUnretainedValue()
        }
        guard creating else { return nil }
        let box = Box()
        pthread_setspecific(key, Unmanaged.passRetained(box).toOpaque())
        return box
    }
}
