import Reactive
import Testing

// The example of docs/reactive/concurrency.md, verbatim: a view model whose whole graph lives in
// one actor, fed from outside, with its output driven to a Binder.

/// The phone-login screen's view model, living in one actor.
actor PhoneLogin {
    /// Input: the phone field's text, fed from any thread (a socket loop, a test).
    nonisolated let phone = PublishRelay<String>()
    /// What the screen shows now; only the actor touches it.
    private(set) var shownTip = ""
    private let bag = DisposeBag()

    /// Builds the graph on the actor and returns its output.
    func start(on scheduler: ActorScheduler<PhoneLogin>) -> Driver<String> {
        scheduler.run(on: self) {
            let tip =
                phone
                .observe(on: scheduler)  // inputs cross into the actor, a batch per hop
                .map { $0.count < 11 ? "Phone number too short" : "" }
                .distinctUntilChanged()
                .asDriver(onErrorJustReturn: "")  // made on the actor: delivers on the actor
            tip.drive(Binder(scheduler) { model, text in model.shownTip = text })
                .disposed(by: bag)
            return tip
        }
    }
}

@Suite(.timeLimit(.minutes(1)))
struct ActorGraphExampleTests {
    @Test func graphLivesInTheActorAndDrivesItsBinder() async throws {
        let model = PhoneLogin()
        let scheduler = ActorScheduler(model)
        let tip = await model.start(on: scheduler)

        model.phone.accept("1380013")  // from outside the actor

        var received: String?
        for try await text in tip.values where !text.isEmpty {
            received = text
            break
        }
        #expect(received == "Phone number too short")
        // `run` is queued behind the binder's update, so it sees the value the screen shows.
        #expect(await scheduler.run { model in model.shownTip } == "Phone number too short")

        model.phone.accept("13800138000")
        for try await text in tip.values where text.isEmpty { break }
        #expect(await scheduler.run { model in model.shownTip } == "")
    }
}
