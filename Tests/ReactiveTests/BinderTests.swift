import Dispatch
import ReactiveTestKit
import Testing

@testable import Reactive

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A stand-in for a widget property: remembers what was set and when.
private final class Label: Sendable {
    let texts = Shared<[String]>([])
}

@Suite(.timeLimit(.minutes(1)))
struct BinderTests {
    @Test func appliesElementsToTheTarget() {
        let label = Label()
        let binder = Binder(label) { label, text in label.texts.append(text) }
        binder.onNext("a")
        binder.asObserver().onNext("b")
        #expect(label.texts.value == ["a", "b"])
    }

    @Test func marbleBindingOnAVirtualScheduler() {
        let scheduler = TestScheduler(initialClock: 0)
        let label = Label()
        let xs = scheduler.createHotObservable([
            .next(150, "a"), .next(210, "b"), .next(220, "c"), .completed(300), .next(310, "d"),
        ])
        let binder = Binder(label, scheduler: scheduler) { (label, text: String) in
            label.texts.append("\(text)@\(scheduler.clock)")
        }
        let subscription = SingleAssignmentDisposable()
        scheduler.scheduleAt(200) { subscription.setDisposable(xs.bind(to: binder)) }
        scheduler.scheduleAt(1000) { subscription.dispose() }
        scheduler.start()
        // Scheduling "now" on the virtual scheduler lands one tick later.
        #expect(label.texts.value == ["b@211", "c@221"])
        #expect(xs.subscriptions == [Subscription(200, 300)])
    }

    @Test func completionIsIgnoredSoTheBinderCanBeBoundAgain() {
        let label = Label()
        let binder = Binder(label) { label, text in label.texts.append(text) }
        let first = PublishSubject<String>()
        let second = PublishSubject<String>()
        let bag = DisposeBag()
        first.bind(to: binder).disposed(by: bag)
        first.onNext("1")
        first.onCompleted()
        second.bind(to: binder).disposed(by: bag)
        second.onNext("2")
        #expect(label.texts.value == ["1", "2"])
    }

    @Test func elementsAreDroppedOnceTheTargetIsGone() throws {
        let applied = Shared(0)
        var label: Label? = Label()
        let binder = Binder(try #require(label)) { (_, _: String) in applied.increment() }
        binder.onNext("a")
        label = nil
        binder.onNext("b")
        #expect(applied.value == 1)
    }

    @Test func appliesElementsOnItsScheduler() {
        let scheduler = SerialScheduler(name: "binder-tests")
        defer { scheduler.dispose() }
        let label = Label()
        let thread = Shared<UInt>(0)
        let done = DispatchSemaphore(value: 0)
        let binder = Binder(label, scheduler: scheduler) { (_, _: Int) in
            thread.value = currentThreadID()
            done.signal()
        }
        binder.onNext(1)
        #expect(done.wait(timeout: .now() + .seconds(10)) == .success)
        #expect(thread.value != 0)
        #expect(thread.value != currentThreadID())
    }
}

/// Tests that install a grammar-violation handler. The handler is process-wide, so they run one at
/// a time, in this suite (extended in the other test files that install one).
@Suite(.serialized, .timeLimit(.minutes(1)))
struct ViolationHandlerSuite {
    /// Runs `body` with a handler that records reports, and returns them.
    static func reports(during body: () -> Void) -> [String] {
        let reports = Shared<[String]>([])
        GrammarCheck.withViolationHandler({ reports.append($0) }, body)
        return reports.value
    }

    @Test func binderReportsAnErrorAndIgnoresIt() {
        let label = Label()
        let binder = Binder(label) { label, text in label.texts.append(text) }
        let reports = Self.reports {
            binder.onError(testError)
            binder.onNext("after")
        }
        #expect(reports == ["binding error: TestError(0)"])
        #expect(label.texts.value == ["after"])
    }

    @Test func boundSequenceErrorReachesTheBinderReport() {
        let scheduler = TestScheduler(initialClock: 0)
        let label = Label()
        let xs = scheduler.createHotObservable([.next(210, "a"), .error(250, testError)])
        let binder = Binder(label) { label, text in label.texts.append(text) }
        let subscription = SingleAssignmentDisposable()
        scheduler.scheduleAt(200) { subscription.setDisposable(xs.bind(to: binder)) }
        scheduler.scheduleAt(1000) { subscription.dispose() }
        let reports = Self.reports { scheduler.start() }
        #expect(reports == ["binding error: TestError(0)"])
        #expect(label.texts.value == ["a"])
        #expect(xs.subscriptions == [Subscription(200, 250)])
    }
}
