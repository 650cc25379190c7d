public import Contracts
public import Dispatch
public import Reactive
public import RemoteProtocol
import Synchronization

/// Opens a `flow.*` channel: the flow, its parameters and the input events to stream in; the
/// gateway's output events come back. Disposing the subscription cancels the channel.
///
/// ``GatewayConnection/open(_:_:_:)`` has this shape; tests pass a fake.
public typealias OpenFlow =
    @Sendable (_ flow: FlowMethod, _ parameters: FlowParameters, _ inputs: Observable<FlowInput>) ->
    Observable<FlowOutput>

/// A scripted use of one flow, as a small state machine: what to send first, then, for every
/// output event, what to do next. Transitions are synchronous and pure; ``ScriptRunner`` performs
/// the actions.
public protocol FlowScript: Sendable {
    /// The channel the script opens, e.g. ``Methods/Flow/login``.
    var flow: FlowMethod { get }
    /// The channel's parameters (locale, token).
    var parameters: FlowParameters { get }
    /// The actions to take once the channel is open (typically the field texts to send).
    mutating func start() -> [ScriptAction]
    /// The actions to take after `output` arrived (nothing while waiting).
    mutating func receive(_ output: FlowOutput) -> [ScriptAction]
}

/// What a script does next.
public enum ScriptAction: Sendable, Hashable {
    /// Streams an input event to the gateway.
    case send(FlowInput)
    /// The script is over with this result; the channel is closed.
    case finish(ScriptResult)
    /// The script cannot go on; the channel is closed.
    case fail(ScriptFailure)
}

/// How a script ended when the flow answered it.
public struct ScriptResult: Sendable, Hashable {
    /// Whether the flow did what was asked.
    public enum Outcome: String, Sendable, Hashable, Codable {
        /// It did (logged in, registered, searched, added): exit code 0.
        case succeeded
        /// The gateway refused (a field is invalid, a wrong password, an overflow): exit code 1.
        case refused
    }

    /// Success or refusal.
    public var outcome: Outcome
    /// The message the screen would show, rendered by the gateway (or, for labels, by the
    /// catalogue in the channel's locale).
    public var message: String
    /// The session token of a successful login or sign-in, when the flow gave one.
    public var token: String?
    /// The device token of a successful login or sign-in, when the flow gave one: the client keeps
    /// it (``DeviceTokenStore``) and never prints it.
    public var deviceToken: IssuedDeviceToken?
    /// Further lines to print before the message (the heroes' names).
    public var lines: [String]

    /// A result.
    public init(
        _ outcome: Outcome, message: String, token: String? = nil, deviceToken: IssuedDeviceToken? = nil,
        lines: [String] = []
    ) {
        self.outcome = outcome
        self.message = message
        self.token = token
        self.deviceToken = deviceToken
        self.lines = lines
    }

    /// The process exit code for this result: 0 or 1.
    public var exitCode: ExitCode { outcome == .succeeded ? .success : .refused }
}

/// Why a script stopped without a result from the flow, or with a refusal raised as an error.
public struct ScriptFailure: Error, Sendable, Hashable, CustomStringConvertible {
    /// The class of failure; it decides the exit code.
    public enum Kind: String, Sendable, Hashable, Codable {
        /// The gateway refused the call itself (`unauthenticated`, e.g. an expired token): 1.
        case refused
        /// The gateway, or a service behind it, could not be reached (`unavailable`, or the flow
        /// reported `network.error`): 2.
        case unreachable
        /// The script's `--timeout` passed, or the call's deadline (`timeout`): 2.
        case timedOut = "timed_out"
        /// Anything the client did not expect: an `ERROR` such as `bad_request` or
        /// `unknown_method`, an output that does not decode, a channel that ended early: 3.
        case protocolError = "protocol_error"
    }

    /// The class of failure.
    public var kind: Kind
    /// What happened, for people.
    public var message: String

    /// A failure.
    public init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }

    /// `error` as a failure: a ``ScriptFailure`` as it is, a ``RemoteError`` by its code, anything
    /// else as a protocol error.
    public init(wrapping error: any Error) {
        if let failure = error as? ScriptFailure {
            self = failure
            return
        }
        guard let remote = error as? RemoteError else {
            self.init(.protocolError, String(describing: error))
            return
        }
        switch remote.code {
        case .unavailable: self.init(.unreachable, "the gateway is unreachable (\(remote.message))")
        case .timeout: self.init(.timedOut, "the gateway did not answer in time (\(remote.message))")
        case .unauthenticated, .rateLimited, .notFound: self.init(.refused, remote.message)
        default: self.init(.protocolError, remote.description)
        }
    }

    /// The process exit code: 1, 2 or 3.
    public var exitCode: ExitCode {
        switch kind {
        case .refused: .refused
        case .unreachable, .timedOut: .unreachable
        case .protocolError: .protocolError
        }
    }

    public var description: String { message }
}

/// The process exit codes of `gateway-cli` (docs/gateway/cli.md).
public enum ExitCode: Int32, Sendable, Hashable, CaseIterable {
    /// The flow did what was asked.
    case success = 0
    /// The gateway refused: an invalid field, a wrong password, a taken username, an overflow.
    case refused = 1
    /// The gateway (or a service behind it) is unreachable, or the timeout passed.
    case unreachable = 2
    /// An unexpected answer or error from the gateway.
    case protocolError = 3
    /// Bad usage: an unknown subcommand or option, a missing value, no server key.
    case usage = 64
    /// Stopped by SIGINT (Ctrl-C) or SIGTERM while running; the channel was cancelled.
    case interrupted = 130
}

/// One event of a running script: an output as it arrives, then the result.
public enum ScriptEvent: Sendable, Hashable {
    /// An output event of the flow, in arrival order.
    case output(FlowOutput)
    /// The trace of an input the script sent, when the run asks for traces (``ScriptTracing``):
    /// after the outputs that input produced.
    case trace(InputTrace)
    /// The last event: the script's result (the sequence then completes).
    case finished(ScriptResult)
}

/// The trace the gateway reported for one input a script sent.
public struct InputTrace: Sendable, Hashable {
    /// The input's name (`username`, `loginTap`); nil for a trace of an input this run did not send.
    public var input: String?
    /// The trace id and hops.
    public var trace: FlowTrace

    /// A trace of `input`.
    public init(input: String?, trace: FlowTrace) {
        self.input = input
        self.trace = trace
    }
}

/// How a script run asks for the traces of its inputs (`gateway-cli --trace`): every input goes out
/// with a fresh sampled `traceparent`, the gateway's ``FlowOutput/Name/trace`` outputs become
/// ``ScriptEvent/trace(_:)`` events (the script never sees them), and the result waits, at most
/// `grace`, for the traces of inputs still outstanding, so that each input's trace comes before it.
public struct ScriptTracing: Sendable {
    /// Makes the `traceparent` of each input (``FlowTrace/newTraceparent()``).
    public var traceparent: @Sendable () -> String
    /// How long the result waits for outstanding traces.
    public var grace: RxTimeInterval

    /// `open` with every input stamped with a fresh ``traceparent`` (the interactive client's
    /// channels; a script run stamps its own).
    public func stamping(_ open: @escaping OpenFlow) -> OpenFlow {
        let traceparent = self.traceparent
        return { flow, parameters, inputs in
            open(flow, parameters, inputs.map { $0.traced(traceparent()) })
        }
    }

    /// Fresh random traceparents; the result waits up to `grace` (default 2 s).
    public init(
        grace: RxTimeInterval = .seconds(2),
        traceparent: @escaping @Sendable () -> String = {
            FlowTrace.newTraceparent()
        }
    ) {
        self.grace = grace
        self.traceparent = traceparent
    }
}

/// Runs a ``FlowScript`` over a flow channel.
public enum ScriptRunner {
    /// Opens the script's channel with `open` when subscribed, sends its first inputs, feeds it
    /// every output and performs its actions.
    ///
    /// The sequence passes every output on as ``ScriptEvent/output(_:)``, then ends with
    /// ``ScriptEvent/finished(_:)`` and completes, or fails with a ``ScriptFailure``: the script's
    /// own, the channel's error mapped by ``ScriptFailure/init(wrapping:)``, a channel that
    /// completes before the script is done (`protocolError`), or `timedOut` when `timeout` passes
    /// (counted from subscription, for the whole script). Either way the channel is disposed
    /// (over ZeroMQ: `CANCEL`), as it is when the subscriber disposes.
    ///
    /// Outputs and the timeout are handled on `scheduler`, which must be serial (a
    /// `SerialScheduler`; a `TestScheduler` in tests): the script sees one event at a time.
    ///
    /// With `tracing`, every input sent carries a fresh sampled `traceparent`, each
    /// ``FlowOutput/Name/trace`` output is a ``ScriptEvent/trace(_:)`` event instead of an output,
    /// and ``ScriptEvent/finished(_:)`` waits until every input sent has its trace or
    /// ``ScriptTracing/grace`` has passed (a failure does not wait).
    public static func run<Script: FlowScript>(
        _ script: Script, open: @escaping OpenFlow, timeout: RxTimeInterval, scheduler: any SchedulerType,
        tracing: ScriptTracing? = nil
    ) -> Observable<ScriptEvent> {
        Observable.create { observer in
            let inputs = ReplaySubject<FlowInput>.createUnbounded()
            let machine = Mutex(script)
            let traces = Mutex(TraceBook())
            let grace = SerialDisposable()
            let finish: @Sendable (ScriptResult) -> Void = { result in
                observer.onNext(.finished(result))
                observer.onCompleted()
            }
            let perform: @Sendable ([ScriptAction]) -> Void = { actions in
                for action in actions {
                    switch action {
                    case .send(let input):
                        guard let tracing else {
                            inputs.onNext(input)
                            continue
                        }
                        let traced = input.traced(tracing.traceparent())
                        traces.withLock { $0.sent(traced) }
                        inputs.onNext(traced)
                    case .finish(let result):
                        guard let tracing, traces.withLock({ $0.hold(result) }) else {
                            finish(result)
                            continue
                        }
                        grace.disposable = scheduler.scheduleRelative((), dueTime: tracing.grace) { _ in
                            if let result = traces.withLock({ $0.release() }) { finish(result) }
                            return Disposables.create()
                        }
                    case .fail(let failure):
                        observer.onError(failure)
                    }
                }
            }
            let timer = scheduler.scheduleRelative((), dueTime: timeout) { _ in
                observer.onError(
                    ScriptFailure(
                        .timedOut, "no result from \(script.flow.name) within \(Self.describe(timeout))")
                )
                return Disposables.create()
            }
            let channel = open(script.flow, script.parameters, inputs.asObservable())
                .observe(on: scheduler)
                .subscribe(
                    onNext: { output in
                        if tracing != nil, output.outputName == .trace, let trace = output.trace {
                            let (input, result) = traces.withLock { $0.received(trace) }
                            observer.onNext(.trace(InputTrace(input: input, trace: trace)))
                            if let result { finish(result) }
                            return
                        }
                        observer.onNext(.output(output))
                        perform(machine.withLock { $0.receive(output) })
                    },
                    onError: { error in observer.onError(ScriptFailure(wrapping: error)) },
                    onCompleted: {
                        observer.onError(
                            ScriptFailure(
                                .protocolError,
                                "the gateway closed \(script.flow.name) before the script was done"
                            ))
                    })
            perform(machine.withLock { $0.start() })
            return Disposables.create([
                channel, timer, grace, Disposables.create { inputs.onCompleted() },
            ])
        }
    }

    /// `10 s`, `500 ms`.
    static func describe(_ interval: RxTimeInterval) -> String {
        switch interval {
        case .seconds(let seconds): return "\(seconds) s"
        case .milliseconds(let milliseconds):
            return milliseconds % 1000 == 0 ? "\(milliseconds / 1000) s" : "\(milliseconds) ms"
        case .microseconds(let microseconds): return "\(microseconds) µs"
        case .nanoseconds(let nanoseconds): return "\(nanoseconds) ns"
        case .never: return "forever"
        @unknown default: return "\(interval)"
        }
    }
}

/// The traces a traced script run waits for: the inputs sent whose trace has not come, and the
/// result held back until it has.
struct TraceBook: Sendable {
    /// The name of each input sent, by the trace id of its `traceparent`, until its trace comes.
    private(set) var pending: [String: String] = [:]
    /// The result, once the script has one, until it is let go.
    private(set) var held: ScriptResult?
    /// Whether the result was let go.
    private(set) var released = false

    /// `input` went out.
    mutating func sent(_ input: FlowInput) {
        guard let traceparent = input.traceparent, let id = FlowTrace.traceID(of: traceparent) else { return }
        pending[id] = input.input
    }

    /// The script is done with `result`: true when it must wait for traces (false: let it go now).
    mutating func hold(_ result: ScriptResult) -> Bool {
        guard !pending.isEmpty else {
            released = true
            return false
        }
        held = result
        return true
    }

    /// `trace` came: the name of the input it traces, and the held result if it was the last one
    /// outstanding.
    mutating func received(_ trace: FlowTrace) -> (input: String?, result: ScriptResult?) {
        let input = pending.removeValue(forKey: trace.traceID)
        guard pending.isEmpty else { return (input, nil) }
        return (input, release())
    }

    /// The held result, once (the grace passed, or nothing is outstanding).
    mutating func release() -> ScriptResult? {
        guard let held, !released else { return nil }
        released = true
        self.held = nil
        return held
    }
}
