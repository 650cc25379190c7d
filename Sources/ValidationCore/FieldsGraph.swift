public import Contracts
public import Reactive

/// The `validate.fields` graph (docs/ARCHITECTURE.md §3): field edits in, `{field, result}` out.
///
/// ```
/// edits ─observe(on:)─┬─ phone    ─ distinct ─ rules ───────────────────────────────┐
///                     ├─ username ─ distinct ─ flatMapLatest(validating, lookup) ────┤
///                     ├─ password ─ distinct ─┬─ rules ──────────────────────────────┼─ merge ─▶
///                     │                       └──────────┐                           │
///                     └─ repeat   ─ distinct ─ combineLatest(password, repeat) ─ rules┘
/// ```
///
/// - Each field's texts are de-duplicated: the same text twice in a row is validated once.
/// - A username that passes the rules emits `validating`, then the lookup's verdict. A newer
///   username disposes the older lookup (latest edit wins), which cancels it at the directory.
/// - A lookup that found the directory unreachable (`network.error`) is made again when the
///   directory recovers (auth-service's connection is back): `validating`, then the verdict, with no
///   new edit.
/// - The repeat is compared with the latest password, and compared again when the password changes.
/// - Everything runs on `scheduler` (the service's `LoopScheduler`): edits reach it on the loop's
///   thread (in the server's call, or once per batch from elsewhere), lookups' answers are delivered
///   there too.
/// - The output completes when the edits complete and the last lookup has answered; it fails when
///   the edits fail.
public enum FieldsGraph {
    /// The results of `edits` for a screen described by `parameters`.
    public static func results(
        of edits: Observable<FieldEdit>, parameters: FieldsParameters, check: UsernameCheck,
        scheduler: any SchedulerType
    ) -> Observable<FieldResult> {
        let rules = check.rules
        return Observable.create { observer in
            let shared = edits.observe(on: scheduler).publish()
            func texts(_ field: Field) -> Observable<String> {
                shared.filter { $0.field == field }.map(\.text).distinctUntilChanged()
            }
            let phone = texts(.phone).map { FieldResult(field: .phone, result: rules.phone($0)) }
            // Emits once the edits end: a username check waiting for the directory to recover gives
            // up then, so the output completes.
            let editsEnded = shared.filter { _ in false }.map { _ in () }.concat(Observable<Void>.just(()))
            let username = texts(.username)
                .flatMapLatest { text in
                    check.results(
                        text, purpose: parameters.usernamePurpose, client: parameters.client,
                        giveUp: editsEnded)
                }
                .map { FieldResult(field: .username, result: $0) }
            let passwords = texts(.password).share(replay: 1)
            let password = passwords.map {
                FieldResult(field: .password, result: rules.password($0, purpose: parameters.passwordPurpose))
            }
            let repeated = Observable.combineLatest(passwords.startWith(""), texts(.repeat)) {
                password, repeated in
                rules.repeat(password: password, repeat: repeated)
            }
            .distinctUntilChanged()
            .map { FieldResult(field: .repeat, result: $0) }
            let subscription = Observable.merge(phone, username, password, repeated).subscribe(observer)
            // Connected last, so a source that emits at once reaches every branch.
            let connection = shared.connect()
            return Disposables.create(subscription, connection)
        }
    }
}
