import Contracts
import GatewayCore
import GatewayMessages
import Reactive
import ReactiveTestKit
import Testing

@Suite("NumbersViewModel", .timeLimit(.minutes(1)))
struct NumbersViewModelTests {
    @Test func theSumFollowsTheFields() {
        let scheduler = TestScheduler(initialClock: 0)
        let a = scheduler.createHotObservable([.next(210, "1"), .next(250, "10")])
        let b = scheduler.createHotObservable([.next(220, "2")])
        let c = scheduler.createHotObservable([.next(230, "x"), .next(240, "3"), .next(260, " 4 ")])
        let model = NumbersViewModel()
        let res = SharingScheduler.mock(scheduler: scheduler) {
            scheduler.start {
                model.transform(.init(a: a.asObservable(), b: b.asObservable(), c: c.asObservable())).sum
                    .asObservable()
            }
        }
        // "x" counts as 0, so 230 repeats 3 and is not shown again.
        #expect(
            res.events == [
                .next(201, .value(0)), .next(211, .value(1)), .next(221, .value(3)), .next(241, .value(6)),
                .next(251, .value(15)), .next(261, .value(16)),
            ])
    }

    @Test func overflowIsReportedAndRecovers() {
        let scheduler = TestScheduler(initialClock: 0)
        let a = scheduler.createHotObservable([.next(210, String(Int.max)), .next(240, "1")])
        let b = scheduler.createHotObservable([
            .next(220, "1"), .next(230, "99999999999999999999999"), .next(250, "2"),
        ])
        let c = scheduler.createHotObservable([Recorded<Event<String>>]())
        let model = NumbersViewModel()
        let res = SharingScheduler.mock(scheduler: scheduler) {
            scheduler.start {
                model.transform(.init(a: a.asObservable(), b: b.asObservable(), c: c.asObservable())).sum
                    .asObservable()
            }
        }
        // Int.max + 1 overflows; so does a number too long for Int, whatever the other fields say.
        #expect(
            res.events == [
                .next(201, .value(0)), .next(211, .value(Int.max)), .next(221, .overflow),
                .next(251, .value(3)),
            ])
        #expect(NumbersSum.overflow.message == ScreenMessage(NumbersSum.overflowCode))
        #expect(NumbersSum.value(3).message == nil)
    }

    @Test func parsing() {
        #expect(NumbersSum.parse("42") == .value(42))
        #expect(NumbersSum.parse("-7") == .value(-7))
        #expect(NumbersSum.parse("+7") == .value(7))
        #expect(NumbersSum.parse("  12\t") == .value(12))
        #expect(NumbersSum.parse("") == .value(0))
        #expect(NumbersSum.parse("abc") == .value(0))
        #expect(NumbersSum.parse("1.5") == .value(0))
        #expect(NumbersSum.parse("-") == .value(0))
        #expect(NumbersSum.parse("١٢") == .value(0))
        #expect(NumbersSum.parse("-99999999999999999999") == .overflow)
        #expect(NumbersSum.of([String(Int.min), "-1"]) == .overflow)
        #expect(NumbersSum.of([String(Int.max), "-1", "1"]) == .value(Int.max))
        #expect(NumbersSum.value(5).description == "5")
        #expect(NumbersSum.overflow.description == "numbers.overflow")
    }
}
