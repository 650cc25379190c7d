public import Contracts
public import Reactive
public import RemoteStreams
import Synchronization
public import ZeroMQ

/// The validation service's logic, behind the methods of docs/services/validation.md.
///
/// The rules are pure (``ValidationRules``); only usernames need another service, through a
/// ``UsernameDirectory``. Request methods answer `Single`s; `validate.fields` builds one
/// ``FieldsGraph`` per channel, run on the service's event loop (its ``LoopScheduler``): edits,
/// lookups' answers and results meet on that one thread, where its server and its client of
/// auth-service run.
public final class ValidationService: Sendable {
    /// Counters for `sys.stats`.
    public struct Counters: Sendable, Hashable {
        /// Request/response validations answered.
        public var requests = 0
        /// `validate.fields` channels opened.
        public var channelsOpened = 0
        /// `validate.fields` channels open now.
        public var channelsOpen = 0
        /// Field edits received on channels.
        public var edits = 0
        /// Field results sent on channels.
        public var results = 0
    }

    /// The rules.
    public let rules: ValidationRules
    /// The username lookups' counters.
    public let checks: CheckCounters
    private let scheduler: any SchedulerType
    private let directory: any UsernameDirectory
    private let lookupTimeout: RxTimeInterval
    private let counters_ = Mutex(Counters())

    /// A service over `directory` whose graphs run on `loop`'s thread (a ``LoopScheduler``), with
    /// its timers: the process's event loop, which its caller owns and stops.
    ///
    /// - Parameter lookupTimeout: how long a username lookup may take before it is `network.error`.
    public convenience init(
        rules: ValidationRules, directory: any UsernameDirectory, lookupTimeout: RxTimeInterval,
        loop: SocketLoop
    ) {
        self.init(
            rules: rules, directory: directory, lookupTimeout: lookupTimeout,
            scheduler: LoopScheduler(on: loop) as any SchedulerType)
    }

    /// A service over `directory` whose graphs run on `scheduler` (tests pass a `TestScheduler`).
    ///
    /// - Parameter lookupTimeout: how long a username lookup may take before it is `network.error`.
    public init(
        rules: ValidationRules, directory: any UsernameDirectory, lookupTimeout: RxTimeInterval,
        scheduler: any SchedulerType
    ) {
        self.rules = rules
        self.directory = directory
        self.lookupTimeout = lookupTimeout
        self.checks = CheckCounters()
        self.scheduler = scheduler
    }

    /// The counters so far.
    public var counters: Counters { counters_.withLock { $0 } }

    private var check: UsernameCheck {
        UsernameCheck(
            rules: rules, directory: directory, timeout: lookupTimeout, scheduler: scheduler, counters: checks
        )
    }

    /// Registers the `validate.*` methods.
    public func register(into handlers: inout RemoteHandlers) {
        handlers.handle(Methods.Validation.phone) { [self] (request: PhoneValidationRequest) in
            answered(.just(rules.phone(request.text)))
        }
        handlers.handle(Methods.Validation.password) { [self] (request: PasswordValidationRequest) in
            answered(.just(rules.password(request.text, purpose: request.purpose)))
        }
        handlers.handle(Methods.Validation.username) {
            [self] (request: UsernameValidationRequest, call: CallContext) in
            answered(username(request, client: request.client ?? call.peer))
        }
        handlers.handle(Methods.Validation.repeat) { [self] (request: RepeatValidationRequest) in
            answered(.just(rules.repeat(password: request.password, repeat: request.repeat)))
        }
        handlers.handle(Methods.Validation.fields) {
            [self] (parameters: FieldsParameters, edits: Observable<FieldEdit>, call: CallContext) in
            var parameters = parameters
            if parameters.client == nil { parameters.client = call.peer }
            return fields(parameters, edits: edits)
        }
    }

    /// `validate.username`: the rules, then the lookup (final result only).
    public func username(_ request: UsernameValidationRequest, client: String?) -> Single<ValidationResult> {
        check.result(request.text, purpose: request.purpose, client: client)
    }

    /// `validate.fields`: the channel's results (see ``FieldsGraph``).
    public func fields(_ parameters: FieldsParameters, edits: Observable<FieldEdit>) -> Observable<
        FieldResult
    > {
        let counted = edits.do(onNext: { [self] _ in count { $0.edits += 1 } })
        return FieldsGraph.results(of: counted, parameters: parameters, check: check, scheduler: scheduler)
            .do(
                onNext: { [self] _ in count { $0.results += 1 } },
                onSubscribe: { [self] in
                    count {
                        $0.channelsOpened += 1
                        $0.channelsOpen += 1
                    }
                },
                onDispose: { [self] in count { $0.channelsOpen -= 1 } })
    }

    private func answered(_ result: Single<ValidationResult>) -> Single<ValidationResult> {
        result.do(onSuccess: { [self] _ in count { $0.requests += 1 } })
    }

    private func count(_ update: (inout Counters) -> Void) {
        counters_.withLock { update(&$0) }
    }
}

extension ValidationService.Counters {
    /// The counters as a `sys.stats` group.
    public var statsGroup: [String: Int] {
        [
            "requests": requests, "channels_opened": channelsOpened, "channels_open": channelsOpen,
            "edits": edits, "results": results,
        ]
    }
}
