public import Contracts
public import Reactive
import Synchronization

/// What the username checks did so far, for `sys.stats` and the service's health.
public final class CheckCounters: Sendable {
    private let started_ = Atomic<Int>(0)
    private let answered_ = Atomic<Int>(0)
    private let cancelled_ = Atomic<Int>(0)
    private let failed_ = Atomic<Int>(0)
    private let throttled_ = Atomic<Int>(0)
    private let lastUnreachable_ = Atomic<Bool>(false)

    /// Counters at zero.
    public init() {}

    /// Lookups sent to the directory.
    public var started: Int { started_.load(ordering: .relaxed) }
    /// Lookups answered (exists or not).
    public var answered: Int { answered_.load(ordering: .relaxed) }
    /// Lookups disposed before their answer (a newer edit, a closed channel, a cancelled call).
    public var cancelled: Int { cancelled_.load(ordering: .relaxed) }
    /// Lookups that failed as `network.error` (unreachable, timed out, unreadable).
    public var failed: Int { failed_.load(ordering: .relaxed) }
    /// Lookups refused by the directory's rate limit.
    public var throttled: Int { throttled_.load(ordering: .relaxed) }
    /// Whether the latest lookup that ended found the directory unreachable (or silent).
    public var lastUnreachable: Bool { lastUnreachable_.load(ordering: .relaxed) }

    /// The counters as a `sys.stats` group.
    public var statsGroup: [String: Int] {
        [
            "checks_started": started, "checks_answered": answered, "checks_cancelled": cancelled,
            "checks_failed": failed, "checks_throttled": throttled,
        ]
    }

    func recordStart() { started_.add(1, ordering: .relaxed) }

    func recordAnswer() {
        answered_.add(1, ordering: .relaxed)
        lastUnreachable_.store(false, ordering: .relaxed)
    }

    func recordCancel() { cancelled_.add(1, ordering: .relaxed) }

    func recordFailure(_ error: any Error) {
        if LookupFailure.result(for: error).code == .usernameThrottled {
            throttled_.add(1, ordering: .relaxed)
            lastUnreachable_.store(false, ordering: .relaxed)
        } else {
            failed_.add(1, ordering: .relaxed)
            lastUnreachable_.store(LookupFailure.isUnreachable(error), ordering: .relaxed)
        }
    }
}

/// The username rule with its lookup: the rules first, then the directory, bounded by a timeout.
///
/// A lookup that fails or times out becomes `failed` (`network.error` or `username.throttled`),
/// never "available" and never "taken". Disposing a check before its answer disposes the lookup.
///
/// In a live check (``results(_:purpose:client:)``), a lookup that found the directory unreachable
/// is made again when the directory recovers (``UsernameDirectory/recoveries``): the field shows
/// `network.error`, then `validating` and the verdict once auth-service is back, with no new
/// keystroke. A newer edit disposes the waiting check as it disposes a lookup.
public struct UsernameCheck: Sendable {
    /// The rules.
    public let rules: ValidationRules
    /// Where names are looked up.
    public let directory: any UsernameDirectory
    /// How long a lookup may take before it counts as `network.error` (on `scheduler`'s clock).
    public let timeout: RxTimeInterval
    /// The scheduler the timeout runs on and answers are delivered on.
    public let scheduler: any SchedulerType
    /// The counters the checks update.
    public let counters: CheckCounters

    /// A check with its collaborators.
    public init(
        rules: ValidationRules, directory: any UsernameDirectory, timeout: RxTimeInterval,
        scheduler: any SchedulerType, counters: CheckCounters = CheckCounters()
    ) {
        self.rules = rules
        self.directory = directory
        self.timeout = timeout
        self.scheduler = scheduler
        self.counters = counters
    }

    /// The stream of one edit: the rules' verdict alone, or `validating` then the lookup's verdict.
    /// A lookup that found the directory unreachable is made again (`validating`, then its verdict)
    /// when the directory recovers, until `giveUp` emits (the end of the edits) or the stream is
    /// disposed.
    public func results(
        _ text: String, purpose: UsernamePurpose, client: String?, giveUp: Observable<Void> = .never()
    ) -> Observable<ValidationResult> {
        switch rules.username(text, purpose: purpose) {
        case .decided(let result):
            return .just(result)
        case .lookUp(let name):
            return liveLookUp(name, purpose: purpose, client: client, giveUp: giveUp).startWith(.validating)
        }
    }

    /// A lookup's verdict; if the directory was unreachable, `validating` and the verdict of a new
    /// lookup after the directory's next recovery, and so on until one gets through or `giveUp`.
    private func liveLookUp(
        _ name: String, purpose: UsernamePurpose, client: String?, giveUp: Observable<Void>
    ) -> Observable<ValidationResult> {
        let check = self
        return Observable.create { observer in
            // Watched from before the lookup starts, so a recovery while it runs is not missed.
            let recovered = ReplaySubject<Void>.create(bufferSize: 1)
            let watch = check.directory.recoveries.take(1).observe(on: check.scheduler).subscribe(recovered)
            let lookup = check.attempt(name, purpose: purpose, client: client).asObservable()
                .flatMap { outcome -> Observable<ValidationResult> in
                    guard outcome.unreachable else { return .just(outcome.result) }
                    // true: recovered, so look up again; false: give up (completes).
                    let next = Observable.merge(recovered.take(1).map { true }, giveUp.map { false })
                        .take(1).filter { $0 }
                    return Observable.concat(
                        .just(outcome.result),
                        next.flatMap { _ in
                            check.liveLookUp(name, purpose: purpose, client: client, giveUp: giveUp)
                                .startWith(.validating)
                        })
                }
                .subscribe(observer)
            return Disposables.create(watch, lookup)
        }
    }

    /// The final result of one username (no `validating`), for `validate.username`.
    public func result(_ text: String, purpose: UsernamePurpose, client: String?) -> Single<ValidationResult>
    {
        switch rules.username(text, purpose: purpose) {
        case .decided(let result): .just(result)
        case .lookUp(let name): lookUp(name, purpose: purpose, client: client)
        }
    }

    private func lookUp(_ name: String, purpose: UsernamePurpose, client: String?) -> Single<ValidationResult>
    {
        attempt(name, purpose: purpose, client: client).map { $0.result }
    }

    /// One lookup: its verdict, and whether it failed because the directory was unreachable.
    private func attempt(_ name: String, purpose: UsernamePurpose, client: String?) -> Single<
        (result: ValidationResult, unreachable: Bool)
    > {
        let rules = rules
        let counters = counters
        let directory = directory
        let scheduler = scheduler
        let timeout = timeout
        return Single.deferred {
            // Per subscription: whether the lookup ended, so a disposal before that counts as a cancel.
            let settled = SettledFlag()
            counters.recordStart()
            return directory.exists(name, client: client)
                .observe(on: scheduler)
                .timeout(timeout, scheduler: scheduler)
                .map { exists in
                    settled.set()
                    counters.recordAnswer()
                    return (rules.usernameVerdict(exists: exists, purpose: purpose), false)
                }
                .catch { error in
                    settled.set()
                    counters.recordFailure(error)
                    return .just((LookupFailure.result(for: error), LookupFailure.isUnreachable(error)))
                }
                .do(onDispose: {
                    if !settled.isSet { counters.recordCancel() }
                })
        }
    }
}

/// Whether one lookup has ended.
private final class SettledFlag: Sendable {
    private let value = Atomic<Bool>(false)

    var isSet: Bool { value.load(ordering: .relaxed) }

    func set() { value.store(true, ordering: .relaxed) }
}
