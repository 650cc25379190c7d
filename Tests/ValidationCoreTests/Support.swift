import Contracts
import Reactive
import ReactiveTestKit
import RemoteProtocol
import Synchronization
import ValidationCore

/// Remote errors as auth-service and the client produce them.
enum RemoteErrorFixtures {
    static let rateLimited = RemoteError(code: .rateLimited, message: "too many username checks")
    static let unavailable = RemoteError(code: .unavailable, message: "auth-service is not connected")
    static let timeout = RemoteError(code: .timeout, message: "deadline passed")
    static let internalError = RemoteError(code: .internal, message: "boom")
}

/// A directory on virtual time: each lookup is a fresh cold observable with the events scripted
/// for its name (none: it never answers), recorded with its subscribe and dispose times.
final class StubDirectory: UsernameDirectory {
    private let scheduler: TestScheduler
    private let scripts: [String: [Recorded<Event<Bool>>]]
    private let lookups = Mutex<[(name: String, client: String?, source: TestableObservable<Bool>)]>([])

    init(_ scheduler: TestScheduler, _ scripts: [String: [Recorded<Event<Bool>>]]) {
        self.scheduler = scheduler
        self.scripts = scripts
    }

    func exists(_ username: String, client: String?) -> Single<Bool> {
        let source = scheduler.createColdObservable(scripts[username] ?? [])
        lookups.withLock { $0.append((username, client, source)) }
        return source.asSingle()
    }

    /// The names looked up, in order.
    var names: [String] { lookups.withLock { $0.map(\.name) } }

    /// The clients the lookups were made for, in order.
    var clients: [String?] { lookups.withLock { $0.map(\.client) } }

    /// Every lookup's subscription (subscribe and dispose times), in order.
    var subscriptions: [Subscription] { lookups.withLock { $0.flatMap(\.source.subscriptions) } }
}

/// A directory that answers at once from a set of names.
struct SetDirectory: UsernameDirectory {
    let names: Set<String>

    func exists(_ username: String, client: String?) -> Single<Bool> { .just(names.contains(username)) }
}

/// A virtual clock of milliseconds, with no processing delay, so marble times read as written.
func millisecondScheduler() -> TestScheduler {
    TestScheduler(initialClock: 0, resolution: 0.001, simulateProcessingDelay: false)
}

extension Recorded where Value == Event<FieldEdit> {
    /// An edit of `field` to `text` at `time`.
    static func edit(_ time: TestTime, _ field: Field, _ text: String) -> Self {
        .next(time, FieldEdit(field: field, text: text))
    }
}

extension Recorded where Value == Event<FieldResult> {
    /// A result for `field` at `time`.
    static func result(_ time: TestTime, _ field: Field, _ result: ValidationResult) -> Self {
        .next(time, FieldResult(field: field, result: result))
    }
}
