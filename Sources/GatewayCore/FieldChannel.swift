import Contracts
import Reactive

/// A `validate.fields` channel that heals itself: when it breaks, the view model's fields show
/// `network.error` and the channel is opened again after a delay, or as soon as the service can be
/// reached again (``ValidationServiceClient/recoveries``); the latest texts are sent again, so the
/// fields recover by themselves when the service returns.
enum FieldChannel {
    /// One change to a screen's fields.
    enum Update: Sendable {
        /// A field's new verdict.
        case result(FieldResult)
        /// The channel broke; it is opened again `reopenAfter` later, or at the service's recovery.
        case unreachable
    }

    /// The channel's results over `edits` (which must replay each field's latest text to a new
    /// subscriber), reopened `reopenAfter` after each break or at the service's next recovery,
    /// whichever comes first.
    static func updates(
        validation: any ValidationServiceClient, parameters: FieldsParameters, edits: Observable<FieldEdit>,
        reopenAfter: RxTimeInterval, scheduler: any SchedulerType
    ) -> Observable<Update> {
        validation.fields(parameters, edits: edits)
            .map(Update.result)
            .catch { _ in
                let reopen = Observable.merge(
                    Observable<Int>.timer(reopenAfter, scheduler: scheduler).map { _ in () },
                    validation.recoveries
                )
                .take(1)
                return Observable.concat(
                    .just(.unreachable),
                    reopen.flatMapLatest { _ in
                        updates(
                            validation: validation, parameters: parameters, edits: edits,
                            reopenAfter: reopenAfter, scheduler: scheduler)
                    })
            }
    }

    /// The latest verdict of each of `fields` (a field nobody typed in is `empty`). While the channel
    /// is broken every field that was typed in is `failed` with `network.error`.
    static func verdicts(_ updates: Observable<Update>, fields: [Field]) -> Observable<
        [Field: ValidationResult]
    > {
        let initial = Dictionary(uniqueKeysWithValues: fields.map { ($0, ValidationResult.empty) })
        return updates.scan(initial) { verdicts, update in
            var next = verdicts
            switch update {
            case .result(let answer) where next[answer.field] != nil:
                next[answer.field] = answer.result
            case .result:
                break
            case .unreachable:
                for (field, verdict) in next where verdict.state != .empty {
                    next[field] = .failed(.networkError)
                }
            }
            return next
        }
        .startWith(initial)
    }
}

/// Runs immediate work inline and timed work on `base`: the delivery scheduler of the Drivers and
/// Signals of a flow graph, whose every source already delivers on the flow scheduler (inputs, the
/// services' answers and timers are all observed there). Delivering inline keeps the order of
/// simultaneous output changes the order of the graph's subscriptions, so a flow's output sequence
/// is deterministic; hopping again per Driver would interleave their queues.
struct InlineScheduler: SchedulerType {
    let base: any SchedulerType

    var now: RxTime { base.now }

    func schedule<State: Sendable>(
        _ state: State, action: @escaping @Sendable (State) -> any Disposable
    ) -> any Disposable {
        action(state)
    }

    func scheduleRelative<State: Sendable>(
        _ state: State, dueTime: RxTimeInterval, action: @escaping @Sendable (State) -> any Disposable
    ) -> any Disposable {
        base.scheduleRelative(state, dueTime: dueTime, action: action)
    }

    func schedulePeriodic<State: Sendable>(
        _ state: State, startAfter: RxTimeInterval, period: RxTimeInterval,
        action: @escaping @Sendable (State) -> State
    ) -> any Disposable {
        base.schedulePeriodic(state, startAfter: startAfter, period: period, action: action)
    }
}

/// The services' answers observed on the flow scheduler.
struct ScheduledAuth: AuthServiceClient {
    let base: any AuthServiceClient
    let scheduler: any SchedulerType

    func login(_ request: LoginRequest) -> Single<LoginResponse> {
        base.login(request).observe(on: scheduler)
    }

    func register(_ request: RegisterRequest) -> Single<RegisterResponse> {
        base.register(request).observe(on: scheduler)
    }
}

/// Validation results observed on the flow scheduler.
struct ScheduledValidation: ValidationServiceClient {
    let base: any ValidationServiceClient
    let scheduler: any SchedulerType

    func fields(_ parameters: FieldsParameters, edits: Observable<FieldEdit>) -> Observable<FieldResult> {
        base.fields(parameters, edits: edits).observe(on: scheduler)
    }

    var recoveries: Observable<Void> { base.recoveries.observe(on: scheduler) }
}

/// Search answers observed on the flow scheduler.
struct ScheduledCatalog: HeroCatalogClient {
    let base: any HeroCatalogClient
    let scheduler: any SchedulerType

    func search(_ request: HeroSearchRequest) -> Single<HeroSearchResponse> {
        base.search(request).observe(on: scheduler)
    }
}
