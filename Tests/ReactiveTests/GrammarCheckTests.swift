import Dispatch
import Foundation
import Reactive
import Testing

/// A source that breaks the grammar on purpose.
private struct RogueObservable: ObservableType {
    typealias Element = Int
    func subscribe<Observer: ObserverType>(_ observer: Observer) -> any Disposable
    where Observer.Element == Int {
        observer.onNext(1)
        observer.onCompleted()
        observer.onNext(2)
        observer.onError(testError)
        return Disposables.create()
    }
}

/// These tests install the process-wide violation handler, so they are nested in the serialized
/// `ViolationHandlerSuite` with every other test that does.
extension ViolationHandlerSuite {
    @Suite
    struct GrammarCheckTests {
        @Test func postTerminalEventsAreDroppedAndReported() {
            let violations = Shared<[String]>([])
            let received = Shared<[Event<Int>]>([])
            GrammarCheck.withViolationHandler({ violations.append($0) }) {
                _ = RogueObservable().subscribe { received.append($0) }
            }
            #expect(received.value == [.next(1), .completed])
            if Resources.isTracking {
                #expect(violations.value.count == 2)
                #expect(violations.value.allSatisfy { $0.contains("after a terminal event") })
            }
        }

        @Test func createIgnoresLateEventsWithoutReporting() {
            let violations = Shared<[String]>([])
            let received = Shared<[Event<Int>]>([])
            let disposed = Shared(0)
            GrammarCheck.withViolationHandler({ violations.append($0) }) {
                _ = Observable<Int>.create { observer in
                    observer.onNext(1)
                    observer.onCompleted()
                    observer.onNext(2)
                    observer.onCompleted()
                    return Disposables.create { disposed.increment() }
                }
                .subscribe { received.append($0) }
            }
            #expect(received.value == [.next(1), .completed])
            #expect(violations.value.isEmpty)
            #expect(disposed.value == 1)
        }

        @Test func concurrentDeliveryIsReported() throws {
            guard Resources.isTracking else { return }  // debug builds only
            let violations = Shared<[String]>([])
            let insideFirst = DispatchSemaphore(value: 0)
            let secondDone = DispatchSemaphore(value: 0)
            let observer = Shared<AnyObserver<Int>?>(nil)
            let firstFinished = DispatchSemaphore(value: 0)
            try GrammarCheck.withViolationHandler({ violations.append($0) }) {
                _ = Observable<Int>.create { o in
                    observer.value = o
                    return Disposables.create()
                }
                .subscribe(onNext: { value in
                    if value == 1 {
                        insideFirst.signal()
                        _ = secondDone.wait(timeout: .now() + 10)
                    }
                })
                let target = try #require(observer.value)
                let first = Thread {
                    target.onNext(1); firstFinished.signal()
                }
                first.start()
                #expect(insideFirst.wait(timeout: .now() + 10) == .success)
                let second = Thread {
                    target.onNext(2); secondDone.signal()
                }
                second.start()
                #expect(firstFinished.wait(timeout: .now() + 10) == .success)
            }
            #expect(violations.value.contains { $0.contains("concurrent delivery") })
        }

        @Test func reentrantDeliveryOnOneThreadIsAllowed() {
            let violations = Shared<[String]>([])
            let received = Shared<[Int]>([])
            GrammarCheck.withViolationHandler({ violations.append($0) }) {
                let subject = PublishSubject<Int>()
                let subscription = subject.subscribe(onNext: { value in
                    received.append(value)
                    if value < 3 { subject.onNext(value + 1) }
                })
                subject.onNext(1)
                subscription.dispose()
            }
            #expect(received.value == [1, 2, 3])
            #expect(violations.value.isEmpty)
        }
    }
}
