#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// What a span does in the call it records (OTLP's `SpanKind`).
public enum SpanKind: Int, Sendable {
    /// Work inside one process (auth's hashing, a store commit).
    case `internal` = 1
    /// The serving side of a call.
    case server = 2
    /// The calling side of a call.
    case client = 3
    /// The sending side of a message (a channel's input element).
    case producer = 4
    /// The handling of a message: a channel's input element, in the sender's trace.
    case consumer = 5
}

/// How a span ended (OTLP's `Status`): `unset` is the OTLP default for a span that succeeded.
public enum SpanStatus: Sendable, Hashable {
    case unset
    case ok
    case error(String)
}

/// The value of one span attribute.
public enum AttributeValue: Sendable, Hashable {
    case string(String)
    case int(Int64)
    case bool(Bool)
}

/// One finished span: a named, timed piece of work in a trace, with its parent.
public struct Span: Sendable, Hashable {
    /// The span's own context (its trace id and span id).
    public var context: TraceContext
    /// The parent span's id, 0 for a root span.
    public var parentSpanID: UInt64
    public var name: String
    public var kind: SpanKind
    /// Start and end, in nanoseconds since the Unix epoch.
    public var startNanos: UInt64
    public var endNanos: UInt64
    public var attributes: [(key: String, value: AttributeValue)]
    public var status: SpanStatus

    public init(
        context: TraceContext, parentSpanID: UInt64, name: String, kind: SpanKind, startNanos: UInt64,
        endNanos: UInt64, attributes: [(key: String, value: AttributeValue)] = [], status: SpanStatus = .unset
    ) {
        self.context = context
        self.parentSpanID = parentSpanID
        self.name = name
        self.kind = kind
        self.startNanos = startNanos
        self.endNanos = endNanos
        self.attributes = attributes
        self.status = status
    }

    public static func == (left: Span, right: Span) -> Bool {
        left.context == right.context && left.parentSpanID == right.parentSpanID && left.name == right.name
            && left.kind == right.kind && left.startNanos == right.startNanos
            && left.endNanos == right.endNanos
            && left.status == right.status && left.attributes.map(\.key) == right.attributes.map(\.key)
            && left.attributes.map(\.value) == right.attributes.map(\.value)
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(context)
        hasher.combine(name)
        hasher.combine(startNanos)
    }

    /// The attribute named `key`, if the span has one.
    public func attribute(_ key: String) -> AttributeValue? {
        attributes.first { $0.key == key }?.value
    }
}

/// The wall clock in nanoseconds since the Unix epoch, as spans record it.
public enum WallClock {
    public static func nanos() -> UInt64 {
        var spec = timespec()
        clock_gettime(CLOCK_REALTIME, &spec)
        return UInt64(spec.tv_sec) &* 1_000_000_000 &+ UInt64(spec.tv_nsec)
    }
}
