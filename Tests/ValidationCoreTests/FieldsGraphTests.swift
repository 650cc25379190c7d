import Contracts
import Reactive
import ReactiveTestKit
import RemoteProtocol
import Synchronization
import Testing
import ValidationCore

/// `validate.fields` on virtual time (milliseconds): the graph built by ``FieldsGraph`` with a
/// ``StubDirectory``. Subscribed at 200, disposed at 1000 unless said otherwise.
@Suite("validate.fields graph (marbles)", .timeLimit(.minutes(1)))
struct FieldsGraphTests {
    let scheduler = millisecondScheduler()

    func run(
        _ edits: [Recorded<Event<FieldEdit>>], parameters: FieldsParameters = FieldsParameters(),
        directory: StubDirectory, timeout: RxTimeInterval = .seconds(2), disposed: TestTime = 1000,
        counters: CheckCounters = CheckCounters()
    ) -> (TestableObserver<FieldResult>, TestableObservable<FieldEdit>) {
        let input = scheduler.createHotObservable(edits)
        let check = UsernameCheck(
            rules: ValidationRules(), directory: directory, timeout: timeout, scheduler: scheduler,
            counters: counters)
        let scheduler = self.scheduler
        let observer = scheduler.start(disposed: disposed) {
            FieldsGraph.results(
                of: input.asObservable(), parameters: parameters, check: check, scheduler: scheduler)
        }
        return (observer, input)
    }

    @Test("typing a username: too short, then validating, then the latest edit's verdict")
    func typingSequence() {
        let directory = StubDirectory(
            scheduler,
            ["alice1": [.next(50, true), .completed(50)], "alice12": [.next(50, false), .completed(50)]])
        let (observer, input) = run(
            [
                .edit(210, .username, "a"), .edit(220, .username, "alice"), .edit(230, .username, "alice1"),
                .edit(300, .username, "alice12"),
            ],
            directory: directory)
        #expect(
            observer.events == [
                .result(210, .username, .failed(.usernameShort, ["n": "6"])),
                .result(220, .username, .failed(.usernameShort, ["n": "6"])),
                .result(230, .username, .validating),
                .result(280, .username, .failed(.usernameExists)),
                .result(300, .username, .validating),
                .result(350, .username, .ok(.usernameAvailable)),
            ])
        #expect(directory.names == ["alice1", "alice12"])
        #expect(directory.subscriptions == [Subscription(230, 280), Subscription(300, 350)])
        #expect(input.subscriptions == [Subscription(200, 1000)])
    }

    @Test("latest edit wins: the older lookup is disposed when the newer edit arrives")
    func latestWins() {
        let counters = CheckCounters()
        let directory = StubDirectory(
            scheduler,
            [
                "slow_name": [.next(500, true), .completed(500)],
                "fast_name": [.next(20, false), .completed(20)],
            ])
        let (observer, _) = run(
            [.edit(210, .username, "slow_name"), .edit(260, .username, "fast_name")], directory: directory,
            counters: counters)
        #expect(
            observer.events == [
                .result(210, .username, .validating),
                .result(260, .username, .validating),
                .result(280, .username, .ok(.usernameAvailable)),
            ])
        // The slow lookup was disposed at 260, before its answer at 710 could arrive.
        #expect(directory.subscriptions == [Subscription(210, 260), Subscription(260, 280)])
        #expect(counters.started == 2)
        #expect(counters.cancelled == 1)
        #expect(counters.answered == 1)
    }

    @Test("a channel leaves no live subscription behind, whether it completes or is disposed")
    func noLeaks() {
        Resources.measure { scope in
            let directory = StubDirectory(
                scheduler,
                [
                    "slow_name": [.next(500, true), .completed(500)],
                    "ok_name": [.next(5, false), .completed(5)],
                ])
            _ = run(
                [
                    .edit(210, .username, "slow_name"), .edit(220, .username, "ok_name"),
                    .edit(230, .password, "x"),
                    .edit(240, .repeat, "y"), .edit(250, .username, "slow_name"),
                ],
                directory: directory, disposed: 400)
            _ = run(
                [.edit(410, .username, "ok_name"), .edit(420, .phone, "1"), .completed(430)],
                directory: directory,
                disposed: 1000)
            #expect(scope.total == 0)
        }
    }

    @Test("closing the channel disposes the lookup in flight")
    func disposeCancelsLookup() {
        let directory = StubDirectory(scheduler, [:])  // never answers
        let (observer, input) = run([.edit(210, .username, "pending1")], directory: directory, disposed: 400)
        #expect(observer.events == [.result(210, .username, .validating)])
        #expect(directory.subscriptions == [Subscription(210, 400)])
        #expect(input.subscriptions == [Subscription(200, 400)])
    }

    @Test("de-duplication: the same text twice in a row is validated once, per field")
    func deduplication() {
        let directory = StubDirectory(scheduler, ["same_name": [.next(10, false), .completed(10)]])
        let (observer, _) = run(
            [
                .edit(210, .username, "same_name"), .edit(220, .username, "same_name"),
                .edit(230, .phone, "138"),
                .edit(240, .phone, "138"), .edit(250, .password, "secret1"), .edit(260, .password, "secret1"),
                .edit(270, .phone, "13800138000"),
            ],
            directory: directory)
        #expect(
            observer.events == [
                .result(210, .username, .validating),
                .result(220, .username, .ok(.usernameAvailable)),
                .result(230, .phone, .failed(.phoneShort)),
                .result(250, .password, .ok(.passwordOK)),
                .result(270, .phone, .ok()),
            ])
        #expect(directory.names == ["same_name"])
    }

    @Test("repeat is compared again when the password changes")
    func repeatAfterPasswordChange() {
        let directory = StubDirectory(scheduler, [:])
        let (observer, _) = run(
            [
                .edit(210, .repeat, "secret1"), .edit(220, .password, "secret1"),
                .edit(230, .password, "secret2"),
                .edit(240, .repeat, "secret2"), .edit(250, .repeat, ""),
            ],
            directory: directory)
        #expect(
            observer.events == [
                .result(210, .repeat, .failed(.repeatMismatch)),  // typed before any password
                .result(220, .password, .ok(.passwordOK)),
                .result(220, .repeat, .ok()),
                .result(230, .password, .ok(.passwordOK)),
                .result(230, .repeat, .failed(.repeatMismatch)),
                .result(240, .repeat, .ok()),
                .result(250, .repeat, .empty),
            ])
    }

    @Test("an unreachable directory gives failed/network.error, never available or taken")
    func unreachable() {
        let directory = StubDirectory(
            scheduler, ["down_name": [.error(30, RemoteErrorFixtures.unavailable)]])
        let (observer, _) = run([.edit(210, .username, "down_name")], directory: directory)
        #expect(
            observer.events == [
                .result(210, .username, .validating),
                .result(240, .username, .failed(.networkError)),
            ])
    }

    @Test("a directory that never answers times out into network.error and is disposed then")
    func timeout() {
        let counters = CheckCounters()
        let directory = StubDirectory(scheduler, [:])
        let (observer, _) = run(
            [.edit(210, .username, "silent_name")], directory: directory, timeout: .milliseconds(500),
            counters: counters)
        #expect(
            observer.events == [
                .result(210, .username, .validating),
                .result(710, .username, .failed(.networkError)),
            ])
        #expect(directory.subscriptions == [Subscription(210, 710)])
        #expect(counters.failed == 1)
        #expect(counters.lastUnreachable)
        #expect(counters.cancelled == 0)
    }

    @Test("a rate-limited lookup fails with username.throttled")
    func rateLimited() {
        let counters = CheckCounters()
        let directory = StubDirectory(scheduler, ["busy_name": [.error(5, RemoteErrorFixtures.rateLimited)]])
        let (observer, _) = run(
            [.edit(210, .username, "busy_name")], directory: directory, counters: counters)
        #expect(
            observer.events == [
                .result(210, .username, .validating),
                .result(215, .username, .failed(.usernameThrottled)),
            ])
        #expect(counters.throttled == 1)
        #expect(!counters.lastUnreachable)
    }

    @Test("sign-in purpose: exists is ok, unknown fails, short names are looked up; the client is passed on")
    func signin() {
        let directory = StubDirectory(
            scheduler,
            ["bob": [.next(10, true), .completed(10)], "nobody": [.next(10, false), .completed(10)]])
        let (observer, _) = run(
            [.edit(210, .username, "bob"), .edit(300, .username, "nobody"), .edit(400, .password, "12345")],
            parameters: FieldsParameters(
                usernamePurpose: .signin, passwordPurpose: .login, client: "client-7"),
            directory: directory)
        #expect(
            observer.events == [
                .result(210, .username, .validating),
                .result(220, .username, .ok(.usernameExists)),
                .result(300, .username, .validating),
                .result(310, .username, .failed(.usernameUnknown)),
                .result(400, .password, .failed(.passwordShort)),
            ])
        #expect(directory.clients == ["client-7", "client-7"])
    }

    @Test("the output completes once the edits complete and the last lookup has answered")
    func completion() {
        let directory = StubDirectory(scheduler, ["last_name": [.next(100, false), .completed(100)]])
        let (observer, _) = run(
            [.edit(210, .username, "last_name"), .edit(220, .phone, "1"), .completed(230)],
            directory: directory)
        #expect(
            observer.events == [
                .result(210, .username, .validating),
                .result(220, .phone, .failed(.phoneShort)),
                .result(310, .username, .ok(.usernameAvailable)),
                .completed(310),
            ])
    }

    @Test("an edit stream that fails fails the output and disposes the lookup")
    func inputError() {
        let directory = StubDirectory(scheduler, [:])
        let (observer, _) = run(
            [.edit(210, .username, "some_name"), .error(250, RemoteErrorFixtures.internalError)],
            directory: directory)
        #expect(
            observer.events == [
                .result(210, .username, .validating),
                .error(250, RemoteErrorFixtures.internalError),
            ])
        #expect(directory.subscriptions == [Subscription(210, 250)])
    }

    @Test("a lookup that found auth-service unreachable is made again when it recovers, with no new edit")
    func recheckOnRecovery() {
        let directory = RecoveringDirectory(
            scheduler,
            lookups: [
                [.error(30, RemoteErrorFixtures.unavailable)], [.next(50, false), .completed(50)],
            ],
            recoveries: [.next(400, ())])
        let check = UsernameCheck(
            rules: ValidationRules(), directory: directory, timeout: .seconds(2), scheduler: scheduler)
        let input = scheduler.createHotObservable([Recorded.edit(210, .username, "back_name")])
        let scheduler = self.scheduler
        let observer = scheduler.start(disposed: 1000) {
            FieldsGraph.results(
                of: input.asObservable(), parameters: FieldsParameters(), check: check, scheduler: scheduler)
        }
        #expect(
            observer.events == [
                .result(210, .username, .validating),
                .result(240, .username, .failed(.networkError)),
                .result(400, .username, .validating),
                .result(450, .username, .ok(.usernameAvailable)),
            ])
        #expect(directory.subscriptions == [Subscription(210, 240), Subscription(400, 450)])
        #expect(directory.recoverySubscriptions == [Subscription(210, 400), Subscription(400, 450)])
    }

    @Test("a recovery while the lookup is still failing counts: it is made again right after the failure")
    func recoveryDuringTheLookup() {
        let directory = RecoveringDirectory(
            scheduler,
            lookups: [[.error(100, RemoteErrorFixtures.timeout)], [.next(10, true), .completed(10)]],
            recoveries: [.next(250, ())])
        let (observer, _) = run(directory: directory, [.edit(210, .username, "slow_name")])
        #expect(
            observer.events == [
                .result(210, .username, .validating),
                .result(310, .username, .failed(.networkError)),
                .result(310, .username, .validating),
                .result(320, .username, .failed(.usernameExists)),
            ])
    }

    @Test("a throttled lookup is not made again when the directory recovers")
    func noRecheckWhenThrottled() {
        let throttled = RecoveringDirectory(
            scheduler, lookups: [[.error(10, RemoteErrorFixtures.rateLimited)]], recoveries: [.next(400, ())])
        let (busy, _) = run(directory: throttled, [.edit(210, .username, "busy_name")])
        #expect(busy.events.last == .result(220, .username, .failed(.usernameThrottled)))
        #expect(throttled.subscriptions.count == 1)
    }

    @Test("a newer edit disposes a check waiting for the directory to recover")
    func noRecheckAfterANewerEdit() {
        let newer = RecoveringDirectory(
            scheduler,
            lookups: [[.error(10, RemoteErrorFixtures.unavailable)], [.next(10, false), .completed(10)]],
            recoveries: [.next(400, ())])
        let (edited, _) = run(
            directory: newer, [.edit(210, .username, "first_name"), .edit(300, .username, "other_name")])
        #expect(
            edited.events == [
                .result(210, .username, .validating),
                .result(220, .username, .failed(.networkError)),
                .result(300, .username, .validating),
                .result(310, .username, .ok(.usernameAvailable)),
            ])
        #expect(newer.subscriptions == [Subscription(210, 220), Subscription(300, 310)])
    }

    @Test("a check waiting for the directory to recover gives up when the edits end: the output completes")
    func noRecheckOnceTheEditsEnd() {
        let ended = RecoveringDirectory(
            scheduler, lookups: [[.error(10, RemoteErrorFixtures.unavailable)]], recoveries: [.next(400, ())])
        let (completed, _) = run(directory: ended, [.edit(210, .username, "last_name"), .completed(300)])
        #expect(
            completed.events == [
                .result(210, .username, .validating),
                .result(220, .username, .failed(.networkError)),
                .completed(300),
            ])
    }

    private func run(directory: RecoveringDirectory, _ edits: [Recorded<Event<FieldEdit>>])
        -> (TestableObserver<FieldResult>, TestableObservable<FieldEdit>)
    {
        let input = scheduler.createHotObservable(edits)
        let check = UsernameCheck(
            rules: ValidationRules(), directory: directory, timeout: .seconds(2), scheduler: scheduler)
        let scheduler = self.scheduler
        let observer = scheduler.start(disposed: 1000) {
            FieldsGraph.results(
                of: input.asObservable(), parameters: FieldsParameters(), check: check, scheduler: scheduler)
        }
        return (observer, input)
    }
}

/// A directory on virtual time whose n-th lookup plays the n-th script (whatever the name), with
/// scripted recoveries.
final class RecoveringDirectory: UsernameDirectory {
    private let scheduler: TestScheduler
    private let scripts: [[Recorded<Event<Bool>>]]
    private let recovering: TestableObservable<Void>
    private let lookups = Mutex<[TestableObservable<Bool>]>([])

    init(_ scheduler: TestScheduler, lookups: [[Recorded<Event<Bool>>]], recoveries: [Recorded<Event<Void>>])
    {
        self.scheduler = scheduler
        self.scripts = lookups
        recovering = scheduler.createHotObservable(recoveries)
    }

    func exists(_ username: String, client: String?) -> Single<Bool> {
        let source = lookups.withLock { lookups in
            let script = lookups.count < scripts.count ? scripts[lookups.count] : []
            let source = scheduler.createColdObservable(script)
            lookups.append(source)
            return source
        }
        return source.asSingle()
    }

    var recoveries: Observable<Void> { recovering.asObservable() }

    /// Every lookup's subscription, in order.
    var subscriptions: [Subscription] { lookups.withLock { $0.flatMap(\.subscriptions) } }

    /// The subscriptions to the recoveries.
    var recoverySubscriptions: [Subscription] { recovering.subscriptions }
}
