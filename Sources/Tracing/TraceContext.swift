/// A span's place in a trace, as W3C Trace Context carries it between processes: the trace id
/// (16 bytes), the span id (8 bytes), the flags (bit 0: sampled) and the vendors' `tracestate`.
///
/// `traceparent` is `00-<32 hex trace id>-<16 hex span id>-<2 hex flags>`, lower-case hex; an
/// all-zero trace or span id, upper-case or other bad hex, a length other than 55 or a version
/// other than `00` make the value unreadable, and an unreadable value is ignored, never fatal.
public struct TraceContext: Sendable, Hashable {
    /// The trace id's high and low 8 bytes (never both zero).
    public var traceHigh: UInt64
    public var traceLow: UInt64
    /// The span id (never zero).
    public var spanID: UInt64
    /// The trace flags; bit 0 is `sampled`.
    public var flags: UInt8
    /// The `tracestate` that came with it, passed on as it is (at most 512 bytes kept).
    public var traceState: String?

    public init(traceHigh: UInt64, traceLow: UInt64, spanID: UInt64, flags: UInt8, traceState: String? = nil)
    {
        self.traceHigh = traceHigh
        self.traceLow = traceLow
        self.spanID = spanID
        self.flags = flags
        self.traceState = traceState
    }

    /// Whether the trace is recorded (flag bit 0).
    public var isSampled: Bool { flags & 1 == 1 }

    /// A new trace's root context, with random ids.
    public static func newTrace(sampled: Bool) -> TraceContext {
        var generator = SystemRandomNumberGenerator()
        var high: UInt64 = 0
        var low: UInt64 = 0
        while high == 0 && low == 0 {
            high = generator.next()
            low = generator.next()
        }
        return TraceContext(
            traceHigh: high, traceLow: low, spanID: Self.newSpanID(), flags: sampled ? 1 : 0)
    }

    /// A context for a child span of this one: same trace, flags and state, a new span id.
    public func child() -> TraceContext {
        TraceContext(
            traceHigh: traceHigh, traceLow: traceLow, spanID: Self.newSpanID(), flags: flags,
            traceState: traceState)
    }

    /// A random non-zero span id.
    public static func newSpanID() -> UInt64 {
        var generator = SystemRandomNumberGenerator()
        while true {
            let id: UInt64 = generator.next()
            if id != 0 { return id }
        }
    }

    /// The trace id as 32 lower-case hex digits.
    public var traceIDHex: String { Hex.string(traceHigh) + Hex.string(traceLow) }
    /// The span id as 16 lower-case hex digits.
    public var spanIDHex: String { Hex.string(spanID) }

    /// The `traceparent` value (version 00).
    public var traceparent: String {
        "00-" + traceIDHex + "-" + spanIDHex + "-" + (isSampled ? "01" : "00")
    }

    /// Reads a `traceparent` value; nil when it is not a valid version-00 value.
    public init?(traceparent: some StringProtocol, traceState: String? = nil) {
        let bytes = Array(traceparent.utf8)
        guard bytes.count == 55, bytes[0] == 0x30, bytes[1] == 0x30, bytes[2] == 0x2D,
            bytes[35] == 0x2D, bytes[52] == 0x2D,
            let high = Hex.value(bytes[3..<19]), let low = Hex.value(bytes[19..<35]),
            let span = Hex.value(bytes[36..<52]), let flags = Hex.value(bytes[53..<55]),
            high != 0 || low != 0, span != 0
        else { return nil }
        var state = traceState
        if let value = state, value.utf8.count > 512 || value.isEmpty { state = nil }
        self.init(
            traceHigh: high, traceLow: low, spanID: span, flags: UInt8(truncatingIfNeeded: flags),
            traceState: state)
    }
}

/// Lower-case hexadecimal, as W3C Trace Context and OTLP JSON write ids.
public enum Hex {
    private static let digits: [UInt8] = Array("0123456789abcdef".utf8)

    /// `value` as 16 hex digits.
    public static func string(_ value: UInt64) -> String {
        String(unsafeUninitializedCapacity: 16) { buffer in
            for index in 0..<16 {
                buffer[index] = digits[Int((value >> (60 - 4 * UInt64(index))) & 0xF)]
            }
            return 16
        }
    }

    /// The number written by 1 to 16 lower-case hex digits; nil for anything else.
    public static func value(_ bytes: ArraySlice<UInt8>) -> UInt64? {
        guard !bytes.isEmpty, bytes.count <= 16 else { return nil }
        var result: UInt64 = 0
        for byte in bytes {
            let digit: UInt8
            switch byte {
            case 0x30...0x39: digit = byte - 0x30
            case 0x61...0x66: digit = byte - 0x61 + 10
            default: return nil
            }
            result = result << 4 | UInt64(digit)
        }
        return result
    }
}
