import Reactive
import Testing

@Suite(.timeLimit(.minutes(1)))
struct DisposablesTests {
    @Test func anonymousDisposableRunsOnce() {
        let count = Shared(0)
        let disposable = Disposables.create { count.increment() }
        #expect(!disposable.isDisposed)
        disposable.dispose()
        disposable.dispose()
        #expect(disposable.isDisposed)
        #expect(count.value == 1)
    }

    @Test func binaryAndArrayDisposablesDisposeEveryMemberOnce() {
        let count = Shared(0)
        let members = (0..<5).map { _ in Disposables.create { count.increment() } }
        let pair = Disposables.create(members[0], members[1])
        let three = Disposables.create(members[2], members[3], members[4])
        pair.dispose()
        pair.dispose()
        three.dispose()
        #expect(count.value == 5)
        #expect(pair.isDisposed && three.isDisposed)
    }

    @Test func singleAssignmentDisposesLateAssignment() {
        let slot = SingleAssignmentDisposable()
        slot.dispose()
        let inner = BooleanDisposable()
        slot.setDisposable(inner)
        #expect(inner.isDisposed)
    }

    @Test func singleAssignmentDisposesAssignedOnDispose() {
        let slot = SingleAssignmentDisposable()
        let inner = BooleanDisposable()
        slot.setDisposable(inner)
        #expect(!inner.isDisposed)
        slot.dispose()
        #expect(inner.isDisposed && slot.isDisposed)
    }

    @Test func serialDisposableReplacesAndDisposesPrevious() {
        let serial = SerialDisposable()
        let first = BooleanDisposable()
        let second = BooleanDisposable()
        serial.disposable = first
        serial.disposable = second
        #expect(first.isDisposed && !second.isDisposed)
        serial.dispose()
        #expect(second.isDisposed)
        let late = BooleanDisposable()
        serial.disposable = late
        #expect(late.isDisposed)
    }

    @Test func compositeInsertRemoveAndLateInsert() {
        let composite = CompositeDisposable()
        let a = BooleanDisposable()
        let b = BooleanDisposable()
        let keyA = composite.insert(a)
        _ = composite.insert(b)
        #expect(composite.count == 2)
        if let keyA { composite.remove(for: keyA) }
        #expect(a.isDisposed && !b.isDisposed && composite.count == 1)
        composite.dispose()
        #expect(b.isDisposed && composite.count == 0)
        let late = BooleanDisposable()
        #expect(composite.insert(late) == nil)
        #expect(late.isDisposed)
    }

    @Test func disposeBagDisposesOnDeinit() {
        let inner = BooleanDisposable()
        do {
            let bag = DisposeBag()
            inner.disposed(by: bag)
            #expect(!inner.isDisposed)
        }
        #expect(inner.isDisposed)
    }

    @Test func disposeBagDropsEntriesAlreadyDisposed() {
        let bag = DisposeBag()
        let kept = BooleanDisposable()
        kept.disposed(by: bag)
        for _ in 0..<1000 {
            let finished = BooleanDisposable()
            finished.disposed(by: bag)
            finished.dispose()
        }
        #expect(bag.count < 40)
        bag.dispose()
        #expect(kept.isDisposed)
        let late = BooleanDisposable()
        late.disposed(by: bag)
        #expect(late.isDisposed)
    }

    @Test func subscriptionsFinishedAreDroppedFromTheBag() {
        let bag = DisposeBag()
        let subject = PublishSubject<Int>()
        for _ in 0..<100 {
            Observable<Int>.create { observer in
                observer.onCompleted()
                return Disposables.create()
            }
            .subscribe()
            .disposed(by: bag)
        }
        subject.subscribe().disposed(by: bag)
        #expect(bag.count < 40)
        #expect(subject.hasObservers)
        bag.dispose()
        #expect(!subject.hasObservers)
    }
}

/// An owner whose bag holds a subscription whose closure captures the owner: a cycle until the
/// subscription ends.
private final class Owner: Sendable {
    let bag = DisposeBag()
    let deinits: Shared<Int>

    init(deinits: Shared<Int>) { self.deinits = deinits }

    deinit { deinits.increment() }
}

@Suite(.timeLimit(.minutes(1)))
struct SubscriptionCycleTests {
    @Test func endingTheSubscriptionBreaksTheCycleThroughItsClosures() {
        let deinits = Shared(0)
        let subject = PublishSubject<Int>()
        do {
            let owner = Owner(deinits: deinits)
            subject.subscribe(onNext: { _ in _ = owner.bag }).disposed(by: owner.bag)
        }
        #expect(deinits.value == 0)  // the subject keeps the subscription, which keeps the owner
        subject.onCompleted()
        #expect(deinits.value == 1)
    }

    @Test func disposingBreaksTheCycleToo() {
        let deinits = Shared(0)
        let subject = PublishSubject<Int>()
        let subscription = Shared<(any Disposable)?>(nil)
        do {
            let owner = Owner(deinits: deinits)
            let handle = subject.subscribe(onNext: { _ in _ = owner.bag })
            handle.disposed(by: owner.bag)
            subscription.value = handle
        }
        subscription.value?.dispose()
        subscription.value = nil
        #expect(deinits.value == 1)
    }
}
