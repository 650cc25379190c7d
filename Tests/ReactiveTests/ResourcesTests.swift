import Reactive
import Testing

@Suite(.timeLimit(.minutes(1)))
struct ResourcesTests {
    @Test func sinksAreReleasedOnDispose() {
        guard Resources.isTracking else { return }
        Resources.measure { scope in
            let subject = PublishSubject<Int>()
            let subscription = subject.map { $0 + 1 }.filter { $0 > 0 }.subscribe(onNext: { _ in })
            #expect(scope.total == 3)  // map, filter, the subscription itself
            subject.onNext(1)
            subscription.dispose()
            #expect(!subject.hasObservers)
            #expect(scope.total == 0)
        }
    }

    @Test func sinksAreReleasedAfterCompletion() {
        guard Resources.isTracking else { return }
        Resources.measure { scope in
            let subject = PublishSubject<Int>()
            let subscription = subject.map { $0 }.subscribe(onNext: { _ in })
            subject.onCompleted()
            #expect((subscription as? any Cancelable)?.isDisposed == true)
            #expect(scope.total == 0)
        }
    }

    @Test func scopesAreIndependent() {
        guard Resources.isTracking else { return }
        let subject = PublishSubject<Int>()
        let outside = subject.subscribe(onNext: { _ in })
        Resources.measure { scope in
            #expect(scope.total == 0)
            let inside = subject.subscribe(onNext: { _ in })
            #expect(scope.total == 1)
            inside.dispose()
        }
        #expect(Resources.total >= 1)
        outside.dispose()
    }
}
