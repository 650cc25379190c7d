public import Contracts
import Dispatch
import Measuring
import Reactive
import RemoteProtocol
public import RemoteStreams
import Synchronization

/// How the gateway's virtual users behave (`--target gateway`).
public struct FlowOptions: Sendable {
    /// The pause before each keystroke and before a tap, in nanoseconds: a person's pace.
    public var think: UInt64
    /// Whether every keystroke is timed (each sent with a sampled `traceparent`, so the outputs it
    /// causes carry its trace id), or only each field's last one.
    public var timeEveryKeystroke: Bool
    /// The language the flows render in.
    public var locale: MessageLocale
    /// What hero-list users search for, one per session in turn.
    public var searches: [String]

    /// Options.
    public init(
        think: UInt64 = 120_000_000, timeEveryKeystroke: Bool = false, locale: MessageLocale = .en,
        searches: [String] = ["a", "an", "ya", "li", "mo", "ar", "zh", "el"]
    ) {
        self.think = think
        self.timeEveryKeystroke = timeEveryKeystroke
        self.locale = locale
        self.searches = searches
    }
}

/// Virtual users on the gateway's flows (`flow.login`, `flow.register`, `flow.signin`,
/// `flow.heroes`): request `i` of a run is one user's session on one screen. The user opens the
/// flow's channel and waits for the screen (its first outputs), types each field a character at a
/// time with ``FlowOptions/think`` between keystrokes, waits for each field's verdict once the
/// field is typed, taps when the button is enabled, and waits for the result; then the session
/// ends and its channel closes. Each wait is one latency sample, by kind:
///
/// - `screen`: from opening the channel to its first output;
/// - `keystroke`: from a timed keystroke to the first final (not `validating`) output of its field
///   that carries that keystroke's trace id, or, when the field's verdict did not change, to the
///   keystroke's `trace` output (its work done, nothing new to show); a timed keystroke is sent with
///   a sampled `traceparent`, which is what ties the outputs to it;
/// - `tap`: from the tap to the result (the login's tip, the sign-in's session or alert, the
///   registration's alert);
/// - `search` (`flow.heroes`): from the search's last keystroke to the page that answers it (the
///   gateway throttles searches by 300 ms, part of the wait).
///
/// Sessions go round-robin over `clients`, as ``AuthWorkload``'s calls do.
public final class GatewayWorkload: Sendable {
    /// The connections to the gateway.
    public let clients: [RemoteClient]
    /// The scenario, users and timeouts.
    public let options: WorkloadOptions
    /// How users behave.
    public let flow: FlowOptions
    private let tokens: [String]
    private let runTag: String
    private let seed: UInt64

    /// A workload over `clients`; `tokens` are sessions for `flow.heroes` (see
    /// ``fetchTokens(client:users:count:)``).
    public init(clients: [RemoteClient], options: WorkloadOptions, flow: FlowOptions, tokens: [String] = []) {
        precondition(!clients.isEmpty, "at least one client")
        self.clients = clients
        self.options = options
        self.flow = flow
        self.tokens = tokens
        let tag = String(UInt32.random(in: 0...UInt32.max), radix: 36)
        runTag = options.shard.isWhole ? tag : "\(tag)s\(options.shard.index)"
        seed = options.shard.seed(options.seed)
    }

    /// The `index`-th seeded user's phone number (`flow.login` logs in with it as the username).
    public static func phone(_ index: Int) -> String {
        let digits = String(index % 100_000_000)
        return "139" + String(repeating: "0", count: max(0, 8 - digits.count)) + digits
    }

    /// Makes sure the seeded accounts numbered `users` exist for `kinds`, through the gateway's
    /// `register` command: phone-named ones for `flow.login`, `lt_user_…` ones for the others.
    /// Returns how many were created now.
    public static func seed(client: RemoteClient, users: Range<Int>, kinds: [RequestKind], inFlight: Int = 8)
        async throws -> Int
    {
        var names: [(String, String)] = []
        for index in users {
            if kinds.contains(.flowLogin) { names.append((phone(index), AuthWorkload.password(index))) }
            if kinds.contains(.flowSignin) || kinds.contains(.flowHeroes) {
                names.append((AuthWorkload.userName(index), AuthWorkload.password(index)))
            }
        }
        let list = names
        return try await Seeding.count(list.count, inFlight: inFlight) { index in
            try await register(client: client, list[index].0, list[index].1)
        }
    }

    private static func register(client: RemoteClient, _ username: String, _ password: String) async throws
        -> Bool
    {
        let result = try await Seeding.retryingOverloaded("registering \(username) through the gateway") {
            try await client.request(
                Methods.Command.register,
                RegisterCommand(
                    username: username, password: password, repeatPassword: password, locale: .en),
                deadline: .seconds(30)
            ).value
        }
        if result.ok { return true }
        if result.code == .usernameExists { return false }
        throw WorkloadError("registering \(username) through the gateway: \(result.code.rawValue)")
    }

    /// Signs the first `count` of the seeded users numbered `users` in through the gateway's
    /// `signin` command and returns their session tokens (for `flow.heroes`).
    public static func fetchTokens(client: RemoteClient, users: Range<Int>, count: Int) async throws
        -> [String]
    {
        var tokens: [String] = []
        for index in users.prefix(count) {
            let result = try await client.request(
                Methods.Command.signin,
                SigninCommand(username: AuthWorkload.userName(index), password: AuthWorkload.password(index)),
                deadline: .seconds(30)
            ).value
            guard result.ok, let token = result.token else {
                throw WorkloadError(
                    "signing \(AuthWorkload.userName(index)) in for a token: \(result.code.rawValue)")
            }
            tokens.append(token)
        }
        return tokens
    }

    /// Runs session `index` and reports it to `done` once it ends: the ``LoadDriver/Call`` of a run.
    public func call(_ index: Int, _ done: @escaping @Sendable (Outcome) -> Void) {
        let client = clients[index % clients.count]
        let (kind, user, _, second) = options.choices(for: index, seed: seed)
        let plan: SessionPlan
        switch kind {
        case .flowLogin:
            plan = SessionPlan(
                flow: Methods.Flow.login, kind: kind,
                fields: [
                    (.phone, .phone, Self.phone(user)), (.password, .password, AuthWorkload.password(user)),
                ],
                tap: .loginTap, enabledFlag: .loginEnabled)
        case .flowSignin:
            plan = SessionPlan(
                flow: Methods.Flow.signin, kind: kind,
                fields: [
                    (.username, .username, AuthWorkload.userName(user)),
                    (.password, .password, AuthWorkload.password(user)),
                ],
                tap: .loginTap, enabledFlag: .loginEnabled)
        case .flowRegister:
            plan = SessionPlan(
                flow: Methods.Flow.register, kind: kind,
                fields: [
                    (.username, .username, "lt_\(runTag)_\(index)"),
                    (.password, .password, "lt-password-new"),
                    (.repeatPassword, .repeatPassword, "lt-password-new"),
                ],
                tap: .registerTap, enabledFlag: .registerEnabled)
        case .flowHeroes:
            guard !tokens.isEmpty, !flow.searches.isEmpty else {
                DispatchQueue.global().async { done(Outcome("error no_token", isError: true)) }
                return
            }
            plan = SessionPlan(
                flow: Methods.Flow.heroes, kind: kind,
                fields: [(.searchText, .heroes, flow.searches[Int(second % UInt64(flow.searches.count))])],
                tap: nil, enabledFlag: nil, token: tokens[Int((second >> 32) % UInt64(tokens.count))])
        case .login, .register, .exists, .verify:
            DispatchQueue.global().async { done(Outcome("error not_a_flow", isError: true)) }
            return
        }
        let typing = UInt64(plan.fields.reduce(0) { $0 + $1.text.count } + 2) * flow.think
        FlowSession(
            plan: plan, flow: flow, client: client, deadline: options.timeout, typing: typing, done: done
        ).start()
    }
}

/// What one session types and waits for.
struct SessionPlan: Sendable {
    let flow: FlowMethod
    let kind: RequestKind
    /// Each field: the input, the output that shows its verdict, the text typed.
    let fields: [(input: FlowInput.Name, output: FlowOutput.Name, text: String)]
    /// The button, if the screen has one.
    let tap: FlowInput.Name?
    /// The flag that says the button can be tapped.
    let enabledFlag: FlowOutput.Name?
    var token: String? = nil
}

/// One virtual user's session: its channel, its keystrokes on a timer, and what it waits for.
final class FlowSession: Sendable {
    private struct State {
        var field = 0
        var typed = 0
        /// Timed keystrokes without their verdict yet: trace id → (the field's output, sent at).
        var pending: [String: (output: FlowOutput.Name, sent: UInt64)] = [:]
        var enabled = false
        var typingDone = false
        var tapScheduled = false
        var lastKeystroke: UInt64 = 0
        var tapSent: UInt64?
        var searchSent: UInt64?
        var screenShown = false
        var samples: [Outcome.Sample] = []
        var finished = false
        var channel: (any Disposable)?
    }

    private let plan: SessionPlan
    private let flow: FlowOptions
    private let client: RemoteClient
    private let deadline: Duration
    private let typing: UInt64
    private let done: @Sendable (Outcome) -> Void
    private let state = Mutex(State())
    private let inputs = ReplaySubject<FlowInput>.createUnbounded()
    private let opened = monotonicNanoseconds()
    private let queue = DispatchQueue.global()

    init(
        plan: SessionPlan, flow: FlowOptions, client: RemoteClient, deadline: Duration, typing: UInt64,
        done: @escaping @Sendable (Outcome) -> Void
    ) {
        self.plan = plan
        self.flow = flow
        self.client = client
        self.deadline = deadline
        self.typing = typing
        self.done = done
    }

    func start() {
        let channel = client.channel(
            plan.flow, FlowParameters(locale: flow.locale, token: plan.token), input: inputs.asObservable(),
            deadline: deadline + .nanoseconds(Int64(typing))
        )
        .subscribe(
            onNext: { [self] output in receive(output) },
            onError: { [self] error in
                let code = (error as? RemoteError)?.code.rawValue ?? "client"
                finish("error \(code)", isError: true)
            },
            onCompleted: { [self] in finish("error closed_early", isError: true) })
        let late = state.withLock { state -> Bool in
            if state.finished { return true }
            state.channel = channel
            return false
        }
        if late { channel.dispose() }
        let limit = DurationText.nanoseconds(deadline) + typing
        queue.asyncAfter(deadline: .now() + .nanoseconds(Int(min(limit, UInt64(Int.max))))) { [self] in
            finish("error timeout", isError: true)
        }
    }

    /// Sends the next keystroke, and schedules the one after it.
    private func keystroke() {
        let now = monotonicNanoseconds()
        let next = state.withLock { state -> (input: FlowInput, timed: Bool)? in
            guard !state.finished, state.field < plan.fields.count else { return nil }
            let field = plan.fields[state.field]
            state.typed += 1
            let text = String(field.text.prefix(state.typed))
            let last = state.typed == field.text.count
            var input = FlowInput.text(field.input, text)
            var timed = false
            if field.output == .heroes {
                if last { state.searchSent = now }
            } else if last || flow.timeEveryKeystroke {
                let traceparent = FlowTrace.newTraceparent()
                if let id = FlowTrace.traceID(of: traceparent) {
                    state.pending[id] = (field.output, now)
                    input = input.traced(traceparent)
                    timed = true
                }
            }
            state.lastKeystroke = now
            if last {
                state.field += 1
                state.typed = 0
                state.typingDone = state.field == plan.fields.count
            }
            return (input, timed)
        }
        guard let next else { return }
        inputs.onNext(next.input)
        if state.withLock({ !$0.typingDone }) {
            after(flow.think) { [self] in keystroke() }
        } else {
            maybeTap()
        }
    }

    private func after(_ nanoseconds: UInt64, _ work: @escaping @Sendable () -> Void) {
        queue.asyncAfter(deadline: .now() + .nanoseconds(Int(nanoseconds)), execute: work)
    }

    /// Taps once every field is typed, every timed keystroke has its verdict and the button is
    /// enabled: a think after the last keystroke, or at once when that has passed.
    private func maybeTap() {
        guard let tap = plan.tap else { return }
        let wait = state.withLock { state -> UInt64? in
            guard !state.finished, state.typingDone, state.pending.isEmpty, state.enabled, !state.tapScheduled
            else { return nil }
            state.tapScheduled = true
            let due = state.lastKeystroke + flow.think
            let now = monotonicNanoseconds()
            return due > now ? due - now : 0
        }
        guard let wait else { return }
        after(wait) { [self] in
            let go = state.withLock { state -> Bool in
                guard !state.finished else { return false }
                state.tapSent = monotonicNanoseconds()
                return true
            }
            if go { inputs.onNext(.tap(tap)) }
        }
    }

    private func receive(_ output: FlowOutput) {
        let now = monotonicNanoseconds()
        var startTyping = false
        var result: (label: String, isError: Bool)?
        state.withLock { state in
            guard !state.finished else { return }
            if !state.screenShown {
                state.screenShown = true
                state.samples.append(Outcome.Sample("screen", now &- opened))
                startTyping = true
            }
            let name = output.outputName
            if name == plan.enabledFlag, let value = output.value { state.enabled = value }
            // A timed keystroke's verdict: the first final output of its field with its trace id,
            // or its trace when nothing changed.
            if let id = output.traceID, let pending = state.pending[id], pending.output == name,
                output.state != .validating
            {
                state.pending[id] = nil
                state.samples.append(Outcome.Sample("keystroke", now &- pending.sent))
            }
            if name == .trace, let id = output.trace?.traceID,
                let pending = state.pending.removeValue(forKey: id)
            {
                state.samples.append(Outcome.Sample("keystroke", now &- pending.sent))
            }
            if name == .heroes, let sent = state.searchSent, let query = output.query,
                query.lowercased() == plan.fields[0].text.lowercased()
            {
                state.samples.append(Outcome.Sample("search", now &- sent))
                result = ("\(plan.kind.rawValue) ok", false)
            }
            if let tapped = state.tapSent, let outcome = tapResult(output) {
                state.samples.append(Outcome.Sample("tap", now &- tapped))
                result = outcome
            }
        }
        if startTyping { after(flow.think) { [self] in keystroke() } }
        if let result {
            finish(result.label, isError: result.isError)
        } else {
            maybeTap()
        }
    }

    /// Whether `output`, after the tap, is its result, and how it went.
    private func tapResult(_ output: FlowOutput) -> (label: String, isError: Bool)? {
        let flowName = plan.kind.rawValue
        switch (plan.kind, output.outputName) {
        case (.flowLogin, .tip):
            guard let code = output.code, code.rawValue.hasPrefix("login.") || code == .networkError else {
                return nil
            }
            return code == .loginOK ? ("\(flowName) ok", false) : ("\(flowName) \(code.rawValue)", true)
        case (.flowSignin, .session):
            return ("\(flowName) ok", false)
        case (.flowSignin, .alert), (.flowRegister, .alert):
            let code = output.code?.rawValue ?? "alert"
            return output.alertKind == .success ? ("\(flowName) ok", false) : ("\(flowName) \(code)", true)
        default:
            return nil
        }
    }

    private func finish(_ label: String, isError: Bool) {
        let ended = state.withLock { state -> (samples: [Outcome.Sample], channel: (any Disposable)?)? in
            guard !state.finished else { return nil }
            state.finished = true
            return (state.samples, state.channel)
        }
        guard let ended else { return }
        ended.channel?.dispose()
        inputs.onCompleted()
        done(Outcome(label, isError: isError, samples: ended.samples))
    }
}
