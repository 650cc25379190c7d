import Reactive
import ReactiveTestKit
import Testing

@Suite(.timeLimit(.minutes(1)))
struct CreateTests {
    @Test func deliversElementsAsTheyAreSent() {
        let scheduler = TestScheduler(initialClock: 0)
        let res = scheduler.start {
            Observable<Int>.create { observer in
                observer.onNext(1)
                observer.onNext(2)
                return Disposables.create()
            }
        }
        #expect(res.events == [.next(200, 1), .next(200, 2)])
    }

    @Test func ignoresEventsAfterCompletionAndDisposesAtOnce() {
        let scheduler = TestScheduler(initialClock: 0)
        let disposedAt = Shared<Int?>(nil)
        let res = scheduler.start {
            Observable<Int>.create { observer in
                observer.onCompleted()
                observer.onNext(100)
                observer.onError(testError)
                observer.onCompleted()
                return Disposables.create { disposedAt.value = scheduler.clock }
            }
        }
        #expect(res.events == [.completed(200)])
        #expect(disposedAt.value == 200)
    }

    @Test func ignoresEventsAfterError() {
        let scheduler = TestScheduler(initialClock: 0)
        let res = scheduler.start {
            Observable<Int>.create { observer in
                observer.onError(testError)
                observer.onNext(100)
                observer.onCompleted()
                return Disposables.create()
            }
        }
        #expect(res.events == [.error(200, testError)])
    }

    @Test func disposesWhatItReturnedAfterTheTerminalEvent() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([
            .next(150, 1), .next(210, 2), .completed(250), .next(260, 3),
        ])
        let disposedAt = Shared<Int?>(nil)
        let res = scheduler.start {
            Observable<Int>.create { observer in
                let subscription = xs.subscribe(observer)
                return Disposables.create {
                    disposedAt.value = scheduler.clock
                    subscription.dispose()
                }
            }
        }
        #expect(res.events == [.next(210, 2), .completed(250)])
        #expect(xs.subscriptions == [Subscription(200, 250)])
        #expect(disposedAt.value == 250)
    }

    @Test func earlyDisposeDisposesWhatItReturned() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([.next(210, 1), .next(320, 2), .completed(400)])
        let res = scheduler.start(disposed: 300) {
            Observable<Int>.create { observer in xs.subscribe(observer) }
        }
        #expect(res.events == [.next(210, 1)])
        #expect(xs.subscriptions == [Subscription(200, 300)])
    }

    @Test func noLeaks() {
        Resources.measure { scope in
            let subject = PublishSubject<Int>()
            let d = Observable<Int>.create { subject.subscribe($0) }.subscribe(onNext: { _ in })
            subject.onNext(1)
            d.dispose()
            #expect(scope.total == 0)
        }
    }
}

@Suite(.timeLimit(.minutes(1)))
struct JustTests {
    @Test func immediate() {
        let scheduler = TestScheduler(initialClock: 0)
        let res = scheduler.start { Observable.just(42) }
        #expect(res.events == [.next(200, 42), .completed(200)])
    }

    @Test func onScheduler() {
        let scheduler = TestScheduler(initialClock: 0)
        let res = scheduler.start { Observable.just(42, scheduler: scheduler) }
        #expect(res.events == [.next(201, 42), .completed(202)])
    }

    @Test func disposedBeforeTheElement() {
        let scheduler = TestScheduler(initialClock: 0)
        let res = scheduler.start(disposed: 200) { Observable.just(42, scheduler: scheduler) }
        #expect(res.events == [])
    }

    @Test func disposedAfterTheElement() {
        let scheduler = TestScheduler(initialClock: 0)
        let res = scheduler.createObserver(Int.self)
        let subscription = SingleAssignmentDisposable()
        scheduler.scheduleAt(100) {
            subscription.setDisposable(
                Observable.just(42, scheduler: scheduler).subscribe { event in
                    res.on(event)
                    if case .next = event { subscription.dispose() }
                })
        }
        scheduler.start()
        #expect(res.events == [.next(101, 42)])
    }

    @Test func noLeaks() {
        Resources.measure { scope in
            let scheduler = TestScheduler(initialClock: 0)
            _ = Observable.just(1).subscribe()
            _ = Observable.just(1, scheduler: scheduler).subscribe()
            scheduler.start()
            #expect(scope.total == 0)
        }
    }
}

@Suite(.timeLimit(.minutes(1)))
struct FromOptionalTests {
    @Test func someImmediate() {
        let scheduler = TestScheduler(initialClock: 0)
        let res = scheduler.start { Observable.from(optional: Int?.some(5)) }
        #expect(res.events == [.next(200, 5), .completed(200)])
    }

    @Test func noneImmediate() {
        let scheduler = TestScheduler(initialClock: 0)
        let res = scheduler.start { Observable.from(optional: Int?.none) }
        #expect(res.events == [.completed(200)])
    }

    @Test func someOnScheduler() {
        let scheduler = TestScheduler(initialClock: 0)
        let res = scheduler.start { Observable.from(optional: Int?.some(5), scheduler: scheduler) }
        #expect(res.events == [.next(201, 5), .completed(202)])
    }

    @Test func noneOnScheduler() {
        let scheduler = TestScheduler(initialClock: 0)
        let res = scheduler.start { Observable.from(optional: Int?.none, scheduler: scheduler) }
        #expect(res.events == [.completed(201)])
    }

    @Test func noLeaks() {
        Resources.measure { scope in
            let scheduler = TestScheduler(initialClock: 0)
            _ = Observable.from(optional: 1 as Int?, scheduler: scheduler).subscribe()
            _ = Observable.from(optional: nil as Int?, scheduler: scheduler).subscribe()
            scheduler.start()
            #expect(scope.total == 0)
        }
    }
}

@Suite(.timeLimit(.minutes(1)))
struct SequenceCreationTests {
    @Test func ofOnTheCurrentThread() {
        let scheduler = TestScheduler(initialClock: 0)
        let res = scheduler.start { Observable.of(3, 1, 2, 4) }
        #expect(res.events == [.next(200, 3), .next(200, 1), .next(200, 2), .next(200, 4), .completed(200)])
    }

    @Test func ofOnScheduler() {
        let scheduler = TestScheduler(initialClock: 0)
        let res = scheduler.start { Observable.of(3, 1, 2, 4, scheduler: scheduler) }
        #expect(res.events == [.next(201, 3), .next(202, 1), .next(203, 2), .next(204, 4), .completed(205)])
    }

    @Test func ofDisposed() {
        let scheduler = TestScheduler(initialClock: 0)
        let res = scheduler.start(disposed: 203) { Observable.of(3, 1, 2, 4, scheduler: scheduler) }
        #expect(res.events == [.next(201, 3), .next(202, 1)])
    }

    @Test func fromArrayOnScheduler() {
        let scheduler = TestScheduler(initialClock: 0)
        let res = scheduler.start { Observable.from([3, 1, 2, 4], scheduler: scheduler) }
        #expect(res.events == [.next(201, 3), .next(202, 1), .next(203, 2), .next(204, 4), .completed(205)])
    }

    @Test func fromArrayDisposed() {
        let scheduler = TestScheduler(initialClock: 0)
        let res = scheduler.start(disposed: 203) { Observable.from([3, 1, 2, 4], scheduler: scheduler) }
        #expect(res.events == [.next(201, 3), .next(202, 1)])
    }

    @Test func fromEmptyArray() {
        let scheduler = TestScheduler(initialClock: 0)
        let res = scheduler.start { Observable<Int>.from([]) }
        #expect(res.events == [.completed(200)])
    }

    @Test func fromSequenceOnScheduler() {
        let scheduler = TestScheduler(initialClock: 0)
        let res = scheduler.start { Observable.from((1...4).reversed(), scheduler: scheduler) }
        #expect(res.events == [.next(201, 4), .next(202, 3), .next(203, 2), .next(204, 1), .completed(205)])
    }

    @Test func fromSequenceIteratesAnewForEachSubscriber() {
        let numbers = Observable.from(1...3)
        let first = Shared<[Int]>([])
        let second = Shared<[Int]>([])
        _ = numbers.subscribe(onNext: { first.append($0) })
        _ = numbers.subscribe(onNext: { second.append($0) })
        #expect(first.value == [1, 2, 3])
        #expect(second.value == [1, 2, 3])
    }

    @Test func fromImmediateScheduler() {
        let received = Shared<[Int]>([])
        let completed = Shared(false)
        _ = Observable.from([1, 2, 3], scheduler: ImmediateScheduler.instance)
            .subscribe(onNext: { received.append($0) }, onCompleted: { completed.value = true })
        #expect(received.value == [1, 2, 3])
        #expect(completed.value)
    }

    /// `take(3)` written with `create`: disposing the infinite source after the third element must
    /// end the iteration, which only works because the source iterates on the trampoline.
    @Test func disposingStopsAnInfiniteSequence() {
        let firstThree = Observable<Int>.create { observer in
            let source = SingleAssignmentDisposable()
            let count = Shared(0)
            source.setDisposable(
                Observable.from(1...).subscribe { event in
                    observer.on(event)
                    if count.increment() == 3 {
                        observer.onCompleted()
                        source.dispose()
                    }
                })
            return source
        }
        let received = Shared<[Int]>([])
        let completed = Shared(false)
        _ = firstThree.subscribe(onNext: { received.append($0) }, onCompleted: { completed.value = true })
        #expect(received.value == [1, 2, 3])
        #expect(completed.value)
    }

    @Test func disposingFromInsideTheTrampolineStopsTheIteration() {
        let received = Shared<[Int]>([])
        let subscription = SingleAssignmentDisposable()
        CurrentThreadScheduler.instance.schedule {
            subscription.setDisposable(
                Observable.from(1...).subscribe(onNext: { value in
                    received.append(value)
                    if value == 5 { subscription.dispose() }
                }))
        }
        #expect(received.value == [1, 2, 3, 4, 5])
    }

    @Test func noLeaks() {
        Resources.measure { scope in
            let scheduler = TestScheduler(initialClock: 0)
            _ = Observable.of(11, scheduler: scheduler).subscribe()
            _ = Observable.from([1, 2], scheduler: scheduler).subscribe()
            _ = Observable.from(1...3).subscribe()
            scheduler.start()
            let endless = Observable.from(1..., scheduler: scheduler).subscribe()
            scheduler.advanceTo(scheduler.clock + 10)
            endless.dispose()
            // The test scheduler drops the disposed step (and what it holds) when it reaches it.
            scheduler.start()
            #expect(scope.total == 0)
        }
    }
}

@Suite(.timeLimit(.minutes(1)))
struct EmptyNeverErrorTests {
    @Test func empty() {
        let scheduler = TestScheduler(initialClock: 0)
        let res = scheduler.start { Observable<Int>.empty() }
        #expect(res.events == [.completed(200)])
    }

    @Test func never() {
        let scheduler = TestScheduler(initialClock: 0)
        let res = scheduler.start { Observable<Int>.never() }
        #expect(res.events == [])
    }

    @Test func error() {
        let scheduler = TestScheduler(initialClock: 0)
        let res = scheduler.start { Observable<Int>.error(testError) }
        #expect(res.events == [.error(200, testError)])
    }
}

@Suite(.timeLimit(.minutes(1)))
struct DeferredTests {
    @Test func complete() {
        let scheduler = TestScheduler(initialClock: 0)
        let invoked = Shared(0)
        let xs = Shared<TestableObservable<Int>?>(nil)
        let res = scheduler.start {
            Observable.deferred {
                invoked.increment()
                let source = scheduler.createColdObservable([.next(100, scheduler.clock), .completed(200)])
                xs.value = source
                return source.asObservable()
            }
        }
        #expect(res.events == [.next(300, 200), .completed(400)])
        #expect(invoked.value == 1)
        #expect(xs.value?.subscriptions == [Subscription(200, 400)])
    }

    @Test func error() {
        let scheduler = TestScheduler(initialClock: 0)
        let invoked = Shared(0)
        let xs = Shared<TestableObservable<Int>?>(nil)
        let res = scheduler.start {
            Observable.deferred {
                invoked.increment()
                let source = scheduler.createColdObservable([
                    .next(100, scheduler.clock), .error(200, testError),
                ])
                xs.value = source
                return source.asObservable()
            }
        }
        #expect(res.events == [.next(300, 200), .error(400, testError)])
        #expect(invoked.value == 1)
        #expect(xs.value?.subscriptions == [Subscription(200, 400)])
    }

    @Test func dispose() {
        let scheduler = TestScheduler(initialClock: 0)
        let invoked = Shared(0)
        let xs = Shared<TestableObservable<Int>?>(nil)
        let res = scheduler.start {
            Observable.deferred {
                let count = invoked.increment()
                let source = scheduler.createColdObservable([
                    .next(100, scheduler.clock), .next(200, count), .next(1100, 1000),
                ])
                xs.value = source
                return source.asObservable()
            }
        }
        #expect(res.events == [.next(300, 200), .next(400, 1)])
        #expect(invoked.value == 1)
        #expect(xs.value?.subscriptions == [Subscription(200, 1000)])
    }

    @Test func factoryThrows() {
        let scheduler = TestScheduler(initialClock: 0)
        let invoked = Shared(0)
        let res = scheduler.start {
            Observable<Int>.deferred {
                invoked.increment()
                throw testError
            }
        }
        #expect(res.events == [.error(200, testError)])
        #expect(invoked.value == 1)
    }

    @Test func factoryRunsForEachSubscription() {
        let invoked = Shared(0)
        let numbers = Observable.deferred { Observable.just(invoked.increment()) }
        let received = Shared<[Int]>([])
        _ = numbers.subscribe(onNext: { received.append($0) })
        _ = numbers.subscribe(onNext: { received.append($0) })
        #expect(received.value == [1, 2])
    }

    @Test func noLeaks() {
        Resources.measure { scope in
            _ = Observable.deferred { Observable.just(1) }.subscribe()
            _ = Observable<Int>.deferred { throw testError }.subscribe()
            let subject = PublishSubject<Int>()
            let open = Observable.deferred { subject.asObservable() }.subscribe()
            #expect(scope.total == 2)  // the deferred sink and the subscribing observer
            open.dispose()
            #expect(scope.total == 0)
        }
    }
}

@Suite(.timeLimit(.minutes(1)))
struct TimerTests {
    @Test func oneShot() {
        let scheduler = TestScheduler(initialClock: 0)
        let res = scheduler.start { Observable<Int>.timer(.seconds(100), scheduler: scheduler) }
        #expect(res.events == [.next(300, 0), .completed(300)])
    }

    @Test func oneShotDisposedBeforeItFires() {
        let scheduler = TestScheduler(initialClock: 0)
        let res = scheduler.start(disposed: 250) {
            Observable<Int>.timer(.seconds(100), scheduler: scheduler)
        }
        #expect(res.events == [])
    }

    @Test func periodic() {
        let scheduler = TestScheduler(initialClock: 0)
        let res = scheduler.start(disposed: 600) {
            Observable<Int>.timer(.seconds(50), period: .seconds(100), scheduler: scheduler)
        }
        #expect(res.events == [.next(250, 0), .next(350, 1), .next(450, 2), .next(550, 3)])
    }

    @Test func intervalBasic() {
        let scheduler = TestScheduler(initialClock: 0)
        let res = scheduler.start { Observable<Int64>.interval(.seconds(100), scheduler: scheduler) }
        #expect(
            res.events == [
                .next(300, 0), .next(400, 1), .next(500, 2), .next(600, 3), .next(700, 4), .next(800, 5),
                .next(900, 6),
            ])
    }

    @Test func intervalZero() {
        let scheduler = TestScheduler(initialClock: 0)
        let res = scheduler.start(disposed: 210) {
            Observable<Int64>.interval(.seconds(0), scheduler: scheduler)
        }
        #expect(res.events == (0..<9).map { Recorded.next(201 + Int($0), Int64($0)) })
    }

    @Test func intervalDisposedBeforeTheFirstTick() {
        let scheduler = TestScheduler(initialClock: 0)
        let res = scheduler.start { Observable<Int64>.interval(.seconds(1000), scheduler: scheduler) }
        #expect(res.events == [])
    }

    @Test func counterWrapsAround() {
        let scheduler = TestScheduler(initialClock: 0)
        let res = scheduler.start(disposed: 459) {
            Observable<UInt8>.interval(.seconds(1), scheduler: scheduler)
        }
        #expect(res.events.count == 258)
        #expect(res.events[255] == .next(456, 255))
        #expect(res.events[256] == .next(457, 0))
    }

    @Test func noLeaks() {
        Resources.measure { scope in
            let scheduler = TestScheduler(initialClock: 0)
            _ = Observable<Int>.timer(.seconds(10), scheduler: scheduler).subscribe()
            let ticking = Observable<Int>.interval(.seconds(10), scheduler: scheduler).subscribe()
            scheduler.advanceTo(100)
            ticking.dispose()
            // The test scheduler drops the disposed tick (and what it holds) when it reaches it.
            scheduler.start()
            #expect(scope.total == 0)
        }
    }
}
