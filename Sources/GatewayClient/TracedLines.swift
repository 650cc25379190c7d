public import Contracts

/// The lines `gateway-cli --json --trace` prints (docs/gateway/cli.md, "Traces"): every output line
/// an input caused carries that input's trace, `"trace":{"trace_id":"…","hops":[…]}`, and each
/// input's own `{"output":"trace","input":…,"trace":…}` line follows the outputs it caused.
///
/// The gateway tags the outputs it sends while an input is being handled with the input's trace id,
/// and sends the trace when the handling is done, so an output line waits for its trace: it is
/// held, and the lines after it too (the order stays the gateway's), until the trace comes, or at
/// most ``hold``; then it is printed with the hops known by then (`"hops":[]` when none came). An
/// output no input caused (a flow's opening state) carries no trace.
///
/// A value type fed with the run's events and the time; it says what to print. Times are in
/// nanoseconds of one monotonic clock.
public struct TracedLines: Sendable {
    /// How long an output line waits for its input's trace.
    public let hold: Duration

    private enum Entry: Sendable {
        /// A line ready to print, once the lines before it are.
        case ready(String)
        /// An output waiting for the trace of `traceID`, held since `since`.
        case waiting(FlowOutput, traceID: String, since: UInt64)
    }

    private var queue: [Entry] = []
    /// The traces that came, by trace id; the oldest are forgotten past ``rememberedTraces``.
    private var traces: [String: FlowTrace] = [:]
    private var traceOrder: [String] = []
    private static let rememberedTraces = 64

    /// Lines that wait at most `hold` (default 2 s) for their trace.
    public init(hold: Duration = .seconds(2)) {
        self.hold = hold
    }

    /// `output` came at `now`: the lines to print now.
    public mutating func output(_ output: FlowOutput, at now: UInt64) -> [String] {
        if let traceID = output.traceID {
            if let trace = traces[traceID] {
                queue.append(.ready(Self.line(output, trace: trace)))
            } else {
                queue.append(.waiting(output, traceID: traceID, since: now))
            }
        } else {
            queue.append(.ready(Self.line(output, trace: nil)))
        }
        return drain(at: now)
    }

    /// The trace of an input came at `now`: the lines to print now (the held outputs it completes,
    /// and its own trace line after them).
    public mutating func trace(_ trace: InputTrace, at now: UInt64) -> [String] {
        let id = trace.trace.traceID
        if traces.updateValue(trace.trace, forKey: id) == nil {
            traceOrder.append(id)
            if traceOrder.count > Self.rememberedTraces { traces[traceOrder.removeFirst()] = nil }
        }
        queue.append(.ready(ScriptPrinter.jsonLine(trace)))
        return drain(at: now)
    }

    /// The lines whose wait is over at `now`.
    public mutating func expire(at now: UInt64) -> [String] {
        drain(at: now)
    }

    /// The run is over: every line still held, each with what is known of its trace.
    public mutating func flush() -> [String] {
        drain(at: .max)
    }

    /// When the first held line's wait is over; nil when no line is held.
    public var nextDeadline: UInt64? {
        for entry in queue {
            if case .waiting(_, _, let since) = entry { return since &+ Self.nanoseconds(hold) }
        }
        return nil
    }

    /// Whether a line is held.
    public var isHolding: Bool { !queue.isEmpty }

    private mutating func drain(at now: UInt64) -> [String] {
        let limit = Self.nanoseconds(hold)
        var lines: [String] = []
        var taken = 0
        for entry in queue {
            switch entry {
            case .ready(let line):
                lines.append(line)
            case .waiting(let output, let traceID, let since):
                if let trace = traces[traceID] {
                    lines.append(Self.line(output, trace: trace))
                } else if now >= since && now - since >= limit {
                    lines.append(Self.line(output, trace: FlowTrace(traceID: traceID, hops: [])))
                } else {
                    queue.removeFirst(taken)
                    return lines
                }
            }
            taken += 1
        }
        queue.removeAll(keepingCapacity: true)
        return lines
    }

    private static func line(_ output: FlowOutput, trace: FlowTrace?) -> String {
        ScriptPrinter.jsonLine(output, trace: trace)
    }

    private static func nanoseconds(_ duration: Duration) -> UInt64 {
        let (seconds, attoseconds) = duration.components
        guard seconds >= 0 else { return 0 }
        return UInt64(seconds) &* 1_000_000_000 &+ UInt64(attoseconds / 1_000_000_000)
    }
}
