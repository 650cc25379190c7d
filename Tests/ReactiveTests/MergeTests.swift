import Dispatch
import Foundation
import Reactive
import ReactiveTestKit
import Synchronization
import Testing

@Suite(.timeLimit(.minutes(1)))
struct MergeTests {
    // MARK: merge() over a sequence of sequences

    @Test func mergesInnerSequencesAsTheyArrive() {
        let scheduler = TestScheduler(initialClock: 0)
        let ys1 = scheduler.createColdObservable([
            .next(10, 101), .next(20, 102), .next(110, 103), .next(120, 104), .next(210, 105),
            .next(220, 106), .completed(230),
        ])
        let ys2 = scheduler.createColdObservable([
            .next(10, 201), .next(20, 202), .next(30, 203), .next(40, 204), .completed(50),
        ])
        let ys3 = scheduler.createColdObservable([
            .next(10, 301), .next(20, 302), .next(30, 303), .next(40, 304), .next(120, 305), .completed(150),
        ])
        let xs = scheduler.createHotObservable([
            .next(300, ys1), .next(400, ys2), .next(500, ys3), .completed(600),
        ])
        let res = scheduler.start { xs.merge() }
        #expect(
            res.events == [
                .next(310, 101), .next(320, 102), .next(410, 103), .next(410, 201), .next(420, 104),
                .next(420, 202), .next(430, 203), .next(440, 204), .next(510, 105), .next(510, 301),
                .next(520, 106), .next(520, 302), .next(530, 303), .next(540, 304), .next(620, 305),
                .completed(650),
            ])
        #expect(xs.subscriptions == [Subscription(200, 600)])
        #expect(ys1.subscriptions == [Subscription(300, 530)])
        #expect(ys2.subscriptions == [Subscription(400, 450)])
        #expect(ys3.subscriptions == [Subscription(500, 650)])
    }

    @Test func completesWithTheOuterWhenInnersAreDone() {
        let scheduler = TestScheduler(initialClock: 0)
        let ys1 = scheduler.createColdObservable([.next(10, 101), .next(20, 102), .completed(230)])
        let ys2 = scheduler.createColdObservable([
            .next(10, 201), .next(20, 202), .next(30, 203), .next(40, 204), .completed(50),
        ])
        let ys3 = scheduler.createColdObservable([
            .next(10, 301), .next(20, 302), .next(30, 303), .next(40, 304), .completed(50),
        ])
        let xs = scheduler.createHotObservable([
            .next(300, ys1), .next(400, ys2), .next(500, ys3), .completed(600),
        ])
        let res = scheduler.start { xs.merge() }
        #expect(
            res.events == [
                .next(310, 101), .next(320, 102), .next(410, 201), .next(420, 202), .next(430, 203),
                .next(440, 204), .next(510, 301), .next(520, 302), .next(530, 303), .next(540, 304),
                .completed(600),
            ])
        #expect(xs.subscriptions == [Subscription(200, 600)])
        #expect(ys1.subscriptions == [Subscription(300, 530)])
        #expect(ys2.subscriptions == [Subscription(400, 450)])
        #expect(ys3.subscriptions == [Subscription(500, 550)])
    }

    @Test func innerErrorDisposesEverything() {
        let scheduler = TestScheduler(initialClock: 0)
        let ys1 = scheduler.createColdObservable([
            .next(10, 101), .next(20, 102), .next(110, 103), .next(120, 104), .next(210, 105),
            .next(220, 106), .completed(230),
        ])
        let ys2 = scheduler.createColdObservable([
            .next(10, 201), .next(20, 202), .next(30, 203), .next(40, 204), .error(50, testError1),
        ])
        let ys3 = scheduler.createColdObservable([
            .next(10, 301), .next(20, 302), .next(30, 303), .next(40, 304), .completed(150),
        ])
        let xs = scheduler.createHotObservable([
            .next(300, ys1), .next(400, ys2), .next(500, ys3), .completed(600),
        ])
        let res = scheduler.start { xs.merge() }
        #expect(
            res.events == [
                .next(310, 101), .next(320, 102), .next(410, 103), .next(410, 201), .next(420, 104),
                .next(420, 202), .next(430, 203), .next(440, 204), .error(450, testError1),
            ])
        #expect(xs.subscriptions == [Subscription(200, 450)])
        #expect(ys1.subscriptions == [Subscription(300, 450)])
        #expect(ys2.subscriptions == [Subscription(400, 450)])
        #expect(ys3.subscriptions == [])
    }

    @Test func outerErrorDisposesEverything() {
        let scheduler = TestScheduler(initialClock: 0)
        let ys1 = scheduler.createColdObservable([
            .next(10, 101), .next(20, 102), .next(110, 103), .next(120, 104), .next(210, 105),
            .next(220, 106), .completed(230),
        ])
        let ys2 = scheduler.createColdObservable([
            .next(10, 201), .next(20, 202), .next(30, 203), .next(40, 204), .completed(50),
        ])
        let xs = scheduler.createHotObservable([.next(300, ys1), .next(400, ys2), .error(500, testError1)])
        let res = scheduler.start { xs.merge() }
        #expect(
            res.events == [
                .next(310, 101), .next(320, 102), .next(410, 103), .next(410, 201), .next(420, 104),
                .next(420, 202), .next(430, 203), .next(440, 204), .error(500, testError1),
            ])
        #expect(xs.subscriptions == [Subscription(200, 500)])
        #expect(ys1.subscriptions == [Subscription(300, 500)])
        #expect(ys2.subscriptions == [Subscription(400, 450)])
    }

    @Test func disposingEarlyDisposesOuterAndInners() {
        let scheduler = TestScheduler(initialClock: 0)
        let ys1 = scheduler.createColdObservable([.next(10, 101), .next(120, 102), .completed(230)])
        let ys2 = scheduler.createColdObservable([.next(10, 201), .next(90, 202), .completed(150)])
        let xs = scheduler.createHotObservable([.next(300, ys1), .next(400, ys2), .completed(600)])
        let res = scheduler.start(disposed: 450) { xs.merge() }
        #expect(res.events == [.next(310, 101), .next(410, 201), .next(420, 102)])
        #expect(xs.subscriptions == [Subscription(200, 450)])
        #expect(ys1.subscriptions == [Subscription(300, 450)])
        #expect(ys2.subscriptions == [Subscription(400, 450)])
    }

    // MARK: merge(maxConcurrent:)

    /// The four inner sequences of RxSwift's merge-concat scenarios (`ys2` completes at `ys2End`).
    private static func limitedInners(
        _ scheduler: TestScheduler, ys2End: TestTime = 200, ys3Error: Bool = false
    ) -> [TestableObservable<Int>] {
        [
            scheduler.createColdObservable([.next(50, 1), .next(100, 2), .next(120, 3), .completed(140)]),
            scheduler.createColdObservable([.next(20, 4), .next(70, 5), .completed(ys2End)]),
            scheduler.createColdObservable([
                .next(10, 6), .next(90, 7), .next(110, 8),
                ys3Error ? .error(140, testError1) : .completed(130),
            ]),
            scheduler.createColdObservable([.next(210, 9), .next(240, 10), .completed(300)]),
        ]
    }

    @Test func limitedSubscribesWaitingInnersAsSlotsFree() {
        let scheduler = TestScheduler(initialClock: 0)
        let ys = Self.limitedInners(scheduler)
        let xs = scheduler.createHotObservable([
            .next(210, ys[0]), .next(260, ys[1]), .next(270, ys[2]), .next(320, ys[3]), .completed(400),
        ])
        let res = scheduler.start { xs.merge(maxConcurrent: 2) }
        #expect(
            res.events == [
                .next(260, 1), .next(280, 4), .next(310, 2), .next(330, 3), .next(330, 5), .next(360, 6),
                .next(440, 7), .next(460, 8), .next(670, 9), .next(700, 10), .completed(760),
            ])
        #expect(xs.subscriptions == [Subscription(200, 400)])
        #expect(ys[0].subscriptions == [Subscription(210, 350)])
        #expect(ys[1].subscriptions == [Subscription(260, 460)])
        #expect(ys[2].subscriptions == [Subscription(350, 480)])
        #expect(ys[3].subscriptions == [Subscription(460, 760)])
    }

    @Test func limitedWithALongInner() {
        let scheduler = TestScheduler(initialClock: 0)
        let ys = Self.limitedInners(scheduler, ys2End: 300)
        let xs = scheduler.createHotObservable([
            .next(210, ys[0]), .next(260, ys[1]), .next(270, ys[2]), .next(320, ys[3]), .completed(400),
        ])
        let res = scheduler.start { xs.merge(maxConcurrent: 2) }
        #expect(
            res.events == [
                .next(260, 1), .next(280, 4), .next(310, 2), .next(330, 3), .next(330, 5), .next(360, 6),
                .next(440, 7), .next(460, 8), .next(690, 9), .next(720, 10), .completed(780),
            ])
        #expect(xs.subscriptions == [Subscription(200, 400)])
        #expect(ys[0].subscriptions == [Subscription(210, 350)])
        #expect(ys[1].subscriptions == [Subscription(260, 560)])
        #expect(ys[2].subscriptions == [Subscription(350, 480)])
        #expect(ys[3].subscriptions == [Subscription(480, 780)])
    }

    @Test func limitedWideEnoughForAll() {
        let scheduler = TestScheduler(initialClock: 0)
        let ys = Self.limitedInners(scheduler, ys2End: 300)
        let xs = scheduler.createHotObservable([
            .next(210, ys[0]), .next(260, ys[1]), .next(270, ys[2]), .next(420, ys[3]), .completed(450),
        ])
        let res = scheduler.start { xs.merge(maxConcurrent: 3) }
        #expect(
            res.events == [
                .next(260, 1), .next(280, 4), .next(280, 6), .next(310, 2), .next(330, 3), .next(330, 5),
                .next(360, 7), .next(380, 8), .next(630, 9), .next(660, 10), .completed(720),
            ])
        #expect(xs.subscriptions == [Subscription(200, 450)])
        #expect(ys[0].subscriptions == [Subscription(210, 350)])
        #expect(ys[1].subscriptions == [Subscription(260, 560)])
        #expect(ys[2].subscriptions == [Subscription(270, 400)])
        #expect(ys[3].subscriptions == [Subscription(420, 720)])
    }

    @Test func limitedCompletesWithALateOuter() {
        let scheduler = TestScheduler(initialClock: 0)
        let ys = Self.limitedInners(scheduler, ys2End: 300)
        let xs = scheduler.createHotObservable([
            .next(210, ys[0]), .next(260, ys[1]), .next(270, ys[2]), .next(420, ys[3]), .completed(750),
        ])
        let res = scheduler.start { xs.merge(maxConcurrent: 3) }
        #expect(res.events.last == .completed(750))
        #expect(xs.subscriptions == [Subscription(200, 750)])
        #expect(ys[3].subscriptions == [Subscription(420, 720)])
    }

    @Test func limitedDisposedEarly() {
        let scheduler = TestScheduler(initialClock: 0)
        let ys = Self.limitedInners(scheduler)
        let xs = scheduler.createHotObservable([
            .next(210, ys[0]), .next(260, ys[1]), .next(270, ys[2]), .next(320, ys[3]), .completed(400),
        ])
        let res = scheduler.start(disposed: 450) { xs.merge(maxConcurrent: 2) }
        #expect(
            res.events == [
                .next(260, 1), .next(280, 4), .next(310, 2), .next(330, 3), .next(330, 5), .next(360, 6),
                .next(440, 7),
            ])
        #expect(xs.subscriptions == [Subscription(200, 400)])
        #expect(ys[0].subscriptions == [Subscription(210, 350)])
        #expect(ys[1].subscriptions == [Subscription(260, 450)])
        #expect(ys[2].subscriptions == [Subscription(350, 450)])
        #expect(ys[3].subscriptions == [])
    }

    @Test func limitedOuterError() {
        let scheduler = TestScheduler(initialClock: 0)
        let ys = Self.limitedInners(scheduler)
        let xs = scheduler.createHotObservable([
            .next(210, ys[0]), .next(260, ys[1]), .next(270, ys[2]), .next(320, ys[3]),
            .error(400, testError1),
        ])
        let res = scheduler.start { xs.merge(maxConcurrent: 2) }
        #expect(
            res.events == [
                .next(260, 1), .next(280, 4), .next(310, 2), .next(330, 3), .next(330, 5), .next(360, 6),
                .error(400, testError1),
            ])
        #expect(xs.subscriptions == [Subscription(200, 400)])
        #expect(ys[0].subscriptions == [Subscription(210, 350)])
        #expect(ys[1].subscriptions == [Subscription(260, 400)])
        #expect(ys[2].subscriptions == [Subscription(350, 400)])
        #expect(ys[3].subscriptions == [])
    }

    @Test func limitedInnerError() {
        let scheduler = TestScheduler(initialClock: 0)
        let ys = Self.limitedInners(scheduler, ys3Error: true)
        let xs = scheduler.createHotObservable([
            .next(210, ys[0]), .next(260, ys[1]), .next(270, ys[2]), .next(320, ys[3]), .completed(400),
        ])
        let res = scheduler.start { xs.merge(maxConcurrent: 2) }
        #expect(
            res.events == [
                .next(260, 1), .next(280, 4), .next(310, 2), .next(330, 3), .next(330, 5), .next(360, 6),
                .next(440, 7), .next(460, 8), .error(490, testError1),
            ])
        #expect(xs.subscriptions == [Subscription(200, 400)])
        #expect(ys[0].subscriptions == [Subscription(210, 350)])
        #expect(ys[1].subscriptions == [Subscription(260, 460)])
        #expect(ys[2].subscriptions == [Subscription(350, 490)])
        #expect(ys[3].subscriptions == [Subscription(460, 490)])
    }

    // MARK: Observable.merge over a list

    /// The three ways to merge a fixed list.
    private static let listFactories: [@Sendable ([Observable<Int>]) -> Observable<Int>] = [
        { sources in Observable.merge(sources) },
        { sources in Observable.merge(AnyCollection(sources)) },
        { sources in
            switch sources.count {
            case 0: Observable.merge()
            case 2: Observable.merge(sources[0], sources[1])
            default: Observable.merge(sources[0], sources[1], sources[2])
            }
        },
    ]

    @Test func mergingNothingCompletesAtOnce() {
        for factory in Self.listFactories {
            let scheduler = TestScheduler(initialClock: 0)
            let res = scheduler.start { factory([]) }
            #expect(res.events == [.completed(200)])
        }
    }

    @Test func anEmptySourceDoesNotCompleteTheMerge() {
        for factory in Self.listFactories {
            let scheduler = TestScheduler(initialClock: 0)
            let ys2 = scheduler.createColdObservable([.next(10, 201), .next(20, 202), .completed(50)])
            let res = scheduler.start { factory([syncEvents(.completed), ys2.asObservable()]) }
            #expect(res.events == [.next(210, 201), .next(220, 202), .completed(250)])
            #expect(ys2.subscriptions == [Subscription(200, 250)])
        }
    }

    @Test func emptySourcesCompleteTheMergeAtOnce() {
        for factory in Self.listFactories {
            let scheduler = TestScheduler(initialClock: 0)
            let res = scheduler.start { factory([syncEvents(.completed), syncEvents(.completed)]) }
            #expect(res.events == [.completed(200)])
        }
    }

    @Test func mergesAList() {
        for factory in Self.listFactories {
            let scheduler = TestScheduler(initialClock: 0)
            let ys1 = scheduler.createColdObservable([.next(10, 101), .next(20, 102), .completed(230)])
            let ys2 = scheduler.createColdObservable([.next(10, 201), .next(20, 202), .completed(50)])
            let ys3 = scheduler.createColdObservable([.next(10, 301), .next(20, 302), .completed(150)])
            let res = scheduler.start { factory([ys1, ys2, ys3].map { $0.asObservable() }) }
            #expect(
                res.events == [
                    .next(210, 101), .next(210, 201), .next(210, 301), .next(220, 102), .next(220, 202),
                    .next(220, 302), .completed(430),
                ])
            #expect(ys1.subscriptions == [Subscription(200, 430)])
            #expect(ys2.subscriptions == [Subscription(200, 250)])
            #expect(ys3.subscriptions == [Subscription(200, 350)])
        }
    }

    @Test func anErrorInAListDisposesTheOthers() {
        for factory in Self.listFactories {
            let scheduler = TestScheduler(initialClock: 0)
            let ys1 = scheduler.createColdObservable([.next(10, 101), .next(20, 102), .completed(230)])
            let ys2 = scheduler.createColdObservable([.next(10, 201), .error(15, testError)])
            let ys3 = scheduler.createColdObservable([.next(10, 301), .next(20, 302), .completed(150)])
            let res = scheduler.start { factory([ys1, ys2, ys3].map { $0.asObservable() }) }
            #expect(
                res.events == [.next(210, 101), .next(210, 201), .next(210, 301), .error(215, testError)])
            #expect(ys1.subscriptions == [Subscription(200, 215)])
            #expect(ys2.subscriptions == [Subscription(200, 215)])
            #expect(ys3.subscriptions == [Subscription(200, 215)])
        }
    }

    // MARK: Synchronous sources

    @Test func synchronousInnersDeliverEverything() {
        let count = Shared(0)
        let inner = syncEvents(.next(0), .next(1), .next(2), .completed)
        let outer = syncEvents(.next(inner), .next(inner), .next(inner), .completed)
        for merged in [outer.merge(), outer.merge(maxConcurrent: 1)] {
            count.value = 0
            _ = merged.subscribe(onNext: { _ in count.increment() })
            #expect(count.value == 9)
        }
    }

    @Test func synchronousErrorIsDeliveredOnce() {
        let errors = Shared(0)
        let failing = Observable.concat(
            syncEvents(.next(0), .next(1), .completed), syncEvents(.error(testError)))
        let inner = syncEvents(.next(0), .next(1), .next(2), .completed)
        _ = syncEvents(.next(inner), .next(failing), .next(inner), .completed).merge()
            .subscribe(onError: { _ in errors.increment() })
        #expect(errors.value == 1)
    }

    @Test func mergeOfNothingCompletes() {
        let completions = Shared(0)
        _ = syncEvents(Event<Observable<Int>>.completed).merge()
            .subscribe(onCompleted: { completions.increment() })
        _ = syncEvents(.next(syncEvents(Event<Int>.completed)), .completed).merge(maxConcurrent: 1)
            .subscribe(onCompleted: { completions.increment() })
        #expect(completions.value == 2)
    }

    // MARK: Threads and resources

    @Test func twoThreadsLoseNothing() {
        let count = 2_000
        let left = PublishSubject<Int>()
        let right = PublishSubject<Int>()
        let recorder = ConcurrentRecorder<Int>()
        let subscription = Observable.merge(left.asObservable(), right.asObservable()).subscribe(recorder)
        runConcurrently(
            {
                for value in 0..<count { left.onNext(value) }
                left.onCompleted()
            },
            {
                for value in 0..<count { right.onNext(count + value) }
                right.onCompleted()
            })
        #expect(recorder.waitForTerminalEvent())
        #expect(recorder.violations == [])
        let elements = recorder.events.compactMap(\.element)
        #expect(Set(elements) == Set(0..<(2 * count)))
        #expect(elements.filter { $0 < count } == Array(0..<count))
        #expect(recorder.events.last?.isCompleted == true)
        subscription.dispose()
    }

    @Test func releasesEverythingWhenDone() {
        Resources.measure { scope in
            let outer = PublishSubject<Observable<Int>>()
            let inner = PublishSubject<Int>()
            _ = outer.merge().subscribe(onNext: { _ in })
            outer.onNext(inner.asObservable())
            inner.onNext(1)
            outer.onCompleted()
            #expect(scope.total == 2)
            inner.onCompleted()
            #expect(scope.total == 0)

            let left = PublishSubject<Int>()
            let right = PublishSubject<Int>()
            _ = Observable.merge(left.asObservable(), right.asObservable()).subscribe(onNext: { _ in })
            right.onError(testError)
            #expect(scope.total == 0)
        }
    }

    @Test func releasesEverythingWhenDisposed() {
        Resources.measure { scope in
            let outer = PublishSubject<Observable<Int>>()
            let subscription = outer.merge(maxConcurrent: 1).subscribe(onNext: { _ in })
            outer.onNext(PublishSubject<Int>().asObservable())
            outer.onNext(PublishSubject<Int>().asObservable())
            #expect(scope.total == 2)
            subscription.dispose()
            #expect(scope.total == 0)
        }
    }
}

// MARK: - Shared by the combining operators' tests

/// An observable that sends `events` synchronously to each subscriber.
func syncEvents<Element: Sendable>(_ events: Event<Element>...) -> Observable<Element> {
    Observable.create { observer in
        for event in events { observer.on(event) }
        return Disposables.create()
    }
}

/// Records the events it receives on any thread and checks the grammar as they arrive: never two
/// deliveries at once, nothing after a terminal event. Signals when the terminal event arrives.
final class ConcurrentRecorder<Element: Sendable>: ObserverType {
    private struct State {
        var events: [Event<Element>] = []
        var violations: [String] = []
    }

    private let state = Mutex(State())
    private let inside = Atomic<Int>(0)
    private let terminated = DispatchSemaphore(value: 0)

    func on(_ event: Event<Element>) {
        let concurrent = inside.add(1, ordering: .acquiringAndReleasing).newValue > 1
        state.withLock { state in
            if concurrent { state.violations.append("concurrent delivery of \(event)") }
            if state.events.last?.isStopEvent == true { state.violations.append("\(event) after the end") }
            state.events.append(event)
        }
        inside.subtract(1, ordering: .acquiringAndReleasing)
        if event.isStopEvent { terminated.signal() }
    }

    /// What was received, in order.
    var events: [Event<Element>] { state.withLock { $0.events } }

    /// Grammar violations seen.
    var violations: [String] { state.withLock { $0.violations } }

    /// Waits (at most `seconds`) for the terminal event; returns whether it came.
    func waitForTerminalEvent(seconds: Double = 20) -> Bool {
        terminated.wait(timeout: .now() + seconds) == .success
    }
}

/// Runs each body on its own thread, all released at the same moment; returns at once.
func runConcurrently(_ bodies: @Sendable () -> Void...) {
    let start = DispatchSemaphore(value: 0)
    for body in bodies {
        let thread = Thread {
            start.wait()
            body()
        }
        thread.start()
    }
    for _ in bodies { start.signal() }
}
