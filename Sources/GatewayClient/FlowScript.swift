public import Contracts
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
    /// The last event: the script's result (the sequence then completes).
    case finished(ScriptResult)
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
    public static func run<Script: FlowScript>(
        _ script: Script, open: @escaping OpenFlow, timeout: RxTimeInterval, scheduler: any SchedulerType
    ) -> Observable<ScriptEvent> {
        Observable.create { observer in
            let inputs = ReplaySubject<FlowInput>.createUnbounded()
            let machine = Mutex(script)
            let perform: @Sendable ([ScriptAction]) -> Void = { actions in
                for action in actions {
                    switch action {
                    case .send(let input):
                        inputs.onNext(input)
                    case .finish(let result):
                        observer.onNext(.finished(result))
                        observer.onCompleted()
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
            return Disposables.create([channel, timer, Disposables.create { inputs.onCompleted() }])
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
