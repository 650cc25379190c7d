import Reactive
import Testing

/// Many observers of one subject, removed in every order: the rest keep receiving, in the order
/// they subscribed, and removal stays cheap (a bag of 10,000 subscriptions dropped at once).
@Suite(.timeLimit(.minutes(1)))
struct ObserverBookkeepingTests {
    /// Subscribes `count` observers that record their index, disposes those `remove` picks in the
    /// order it gives them, then emits once: returns who received it, in delivery order.
    private func survivors(count: Int, removing order: [Int]) -> [Int] {
        let subject = PublishSubject<Int>()
        let received = Shared<[Int]>([])
        let subscriptions = (0..<count).map { index in
            subject.subscribe(onNext: { _ in received.append(index) })
        }
        for index in order { subscriptions[index].dispose() }
        subject.onNext(0)
        for subscription in subscriptions { subscription.dispose() }
        #expect(!subject.hasObservers)
        return received.value
    }

    @Test func removalInSubscriptionOrderKeepsTheRestInOrder() {
        #expect(survivors(count: 1_000, removing: Array(0..<900)) == Array(900..<1_000))
    }

    @Test func removalInReverseOrderKeepsTheRestInOrder() {
        #expect(survivors(count: 1_000, removing: Array((100..<1_000).reversed())) == Array(0..<100))
    }

    @Test func removalOfEveryOtherKeepsTheRestInOrder() {
        let odd = Array(stride(from: 1, to: 1_000, by: 2))
        #expect(survivors(count: 1_000, removing: odd) == Array(stride(from: 0, to: 1_000, by: 2)))
    }

    @Test func removalInAScrambledOrderKeepsTheRestInOrder() {
        // A fixed permutation (multiplying by a number prime to the count), all but every seventh.
        let order = (0..<1_000).map { $0 * 389 % 1_000 }.filter { $0 % 7 != 0 }
        #expect(survivors(count: 1_000, removing: order) == Array(stride(from: 0, to: 1_000, by: 7)))
    }

    @Test func disposingTwiceRemovesOnlyOnce() {
        #expect(survivors(count: 40, removing: Array(0..<20) + Array(0..<20)) == Array(20..<40))
    }

    @Test func subscribersAfterRemovalsComeLast() {
        let subject = PublishSubject<Int>()
        let received = Shared<[Int]>([])
        let early = (0..<100).map { index in subject.subscribe(onNext: { _ in received.append(index) }) }
        for subscription in early.dropLast(3) { subscription.dispose() }
        let late = (100..<103).map { index in subject.subscribe(onNext: { _ in received.append(index) }) }
        subject.onNext(0)
        #expect(received.value == [97, 98, 99, 100, 101, 102])
        for subscription in early + late { subscription.dispose() }
    }

    /// Observers that dispose themselves and the next two while an event is being delivered: the
    /// rest of that delivery skips the two disposed (their handlers are released), the next event
    /// reaches only those left, in order.
    @Test func removalDuringDeliveryAffectsOnlyLaterEvents() {
        let subject = PublishSubject<Int>()
        let received = Shared<[String]>([])
        let subscriptions = Shared<[any Disposable]>([])
        let all = (0..<50).map { index in
            subject.subscribe(onNext: { value in
                received.append("\(value):\(index)")
                if value == 0, index % 5 == 0 {
                    for other in subscriptions.value[index..<min(index + 3, 50)] { other.dispose() }
                }
            })
        }
        subscriptions.value = all
        subject.onNext(0)
        subject.onNext(1)
        let expectedFirst = (0..<50).filter { $0 % 5 == 0 || $0 % 5 >= 3 }.map { "0:\($0)" }
        let expectedSecond = (0..<50).filter { $0 % 5 >= 3 }.map { "1:\($0)" }
        #expect(received.value == expectedFirst + expectedSecond)
        for subscription in all { subscription.dispose() }
        #expect(!subject.hasObservers)
    }

    /// 10,000 subscriptions in a bag, dropped at once, ten times: with removal that shifted the
    /// observer list this took seconds; the time limit catches a return of the quadratic cost.
    @Test(.timeLimit(.minutes(1))) func droppingABagOfManySubscriptionsUnsubscribesThemAll() {
        let subject = PublishSubject<Int>()
        let received = Shared(0)
        for _ in 0..<10 {
            let bag = DisposeBag()
            for _ in 0..<10_000 { subject.subscribe(onNext: { _ in received.increment() }).disposed(by: bag) }
            subject.onNext(1)
            #expect(subject.hasObservers)
        }
        #expect(!subject.hasObservers)
        #expect(received.value == 100_000)
    }

    @Test func compositeRemovalInEveryOrder() {
        let composite = CompositeDisposable()
        let members = (0..<200).map { _ in BooleanDisposable() }
        let keys = members.map { composite.insert($0) }
        for index in stride(from: 0, to: 200, by: 2) {
            if let key = keys[index] { composite.remove(for: key) }
        }
        #expect(composite.count == 100)
        #expect(members.enumerated().allSatisfy { $0.element.isDisposed == ($0.offset % 2 == 0) })
        for index in stride(from: 199, to: 0, by: -2) {
            if let key = keys[index] { composite.remove(for: key) }
        }
        #expect(composite.count == 0)
        #expect(members.allSatisfy { $0.isDisposed })
    }
}

/// `DisposeBag` asks its entries whether they are finished through `isKnownDisposed`.
@Suite(.timeLimit(.minutes(1)))
struct DisposeBagSweepTests {
    /// A disposable that cannot tell whether it was disposed: the bag keeps it.
    private struct Plain: Disposable {
        let count: Shared<Int>
        func dispose() { count.increment() }
    }

    @Test func cancelablesReportIsDisposedAndPlainDisposablesFalse() {
        let finished = BooleanDisposable()
        finished.dispose()
        let erased: [any Disposable] = [finished, BooleanDisposable(), Plain(count: Shared(0))]
        #expect(erased.map(\.isKnownDisposed) == [true, false, false])
    }

    @Test func aBagKeepsPlainDisposablesAndDropsFinishedCancelables() {
        let bag = DisposeBag()
        let disposals = Shared(0)
        for _ in 0..<100 {
            Plain(count: disposals).disposed(by: bag)
            let finished = BooleanDisposable()
            finished.disposed(by: bag)
            finished.dispose()
        }
        #expect(bag.count >= 100 && bag.count < 140)
        bag.dispose()
        #expect(disposals.value == 100)
    }

    @Test func aSubscriptionThatEndedIsDroppedAndOneStillRunningKept() {
        let bag = DisposeBag()
        let subject = PublishSubject<Int>()
        subject.subscribe(onNext: { _ in }).disposed(by: bag)
        for _ in 0..<100 { Observable<Int>.empty().subscribe(onNext: { _ in }).disposed(by: bag) }
        #expect(bag.count < 40)
        #expect(subject.hasObservers)
        bag.dispose()
        #expect(!subject.hasObservers)
    }
}
