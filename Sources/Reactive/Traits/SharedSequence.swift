/// How a ``SharedSequence`` shares its source and on which scheduler it delivers.
public protocol SharingStrategyProtocol: Sendable {
    /// The scheduler elements are delivered on, decided when the sequence is made.
    static var scheduler: any SchedulerType { get }

    /// Shares `source` among subscribers the way this trait does.
    static func share<Element: Sendable>(_ source: Observable<Element>) -> Observable<Element>
}

/// A sequence a screen can bind to: it never errors, delivers on its scheduler, and shares one
/// subscription to its source among its subscribers. `Driver` and `Signal` are its two kinds.
///
/// The guarantees are in the type: the only ways to make one (`asDriver(onErrorJustReturn:)`,
/// `asDriver(onErrorDriveWith:)`, `asDriver(onErrorRecover:)`, the constructors and the operators
/// below) handle errors and move delivery to the scheduler, so "never errors" is checked by the
/// compiler rather than by review.
public struct SharedSequence<Strategy: SharingStrategyProtocol, Element: Sendable>: ObservableConvertibleType
{
    @usableFromInline let source: Observable<Element>

    /// Wraps `source`, sharing it with the strategy. `source` must never error and must deliver on
    /// the strategy's scheduler.
    @inlinable
    init(_ source: Observable<Element>) {
        self.source = Strategy.share(source)
    }

    /// Wraps `source` as it is (it is already shared or needs no sharing).
    @inlinable
    init(raw source: Observable<Element>) {
        self.source = source
    }

    @inlinable
    public func asObservable() -> Observable<Element> { source }

    /// This sequence.
    @inlinable
    public func asSharedSequence() -> SharedSequence<Strategy, Element> { self }
}

/// Sharing for ``Driver``: replays the latest element to new subscribers while connected.
public enum DriverSharingStrategy: SharingStrategyProtocol {
    public static var scheduler: any SchedulerType { SharingScheduler.make() }

    @inlinable
    public static func share<Element: Sendable>(_ source: Observable<Element>) -> Observable<Element> {
        source.share(replay: 1, scope: .whileConnected)
    }
}

/// Sharing for ``Signal``: no replay; late subscribers see only later elements.
public enum SignalSharingStrategy: SharingStrategyProtocol {
    public static var scheduler: any SchedulerType { SharingScheduler.make() }

    @inlinable
    public static func share<Element: Sendable>(_ source: Observable<Element>) -> Observable<Element> {
        source.share(scope: .whileConnected)
    }
}

/// A stream of state for a screen: never errors, delivers on its scheduler, shares one
/// subscription and replays the latest element while connected (RxCocoa's `Driver`).
public typealias Driver<Element: Sendable> = SharedSequence<DriverSharingStrategy, Element>

/// A stream of events for a screen: like ``Driver`` but without replay (RxCocoa's `Signal`).
public typealias Signal<Element: Sendable> = SharedSequence<SignalSharingStrategy, Element>

/// Chooses the scheduler new `Driver`s and `Signal`s deliver on.
///
/// `make()` returns, in order: the scheduler given to `mock(scheduler:_:)` for this task (tests);
/// the ``ActorScheduler`` whose actor the calling code runs on (a graph built inside an actor
/// delivers on that actor); otherwise ``defaultScheduler``, one shared serial thread (the
/// server-side counterpart of the main thread).
public enum SharingScheduler {
    @TaskLocal static var mocked: (any SchedulerType)?

    /// The serial scheduler used when no actor or mock applies.
    public static let defaultScheduler: any SchedulerType = SerialScheduler(name: "reactive.sharing")

    /// The scheduler a `Driver` or `Signal` made now delivers on.
    public static func make() -> any SchedulerType {
        if let mocked { return mocked }
        if let context = IsolationContext.current.value { return context.scheduler }
        return defaultScheduler
    }

    /// Runs `body` with `make()` returning `scheduler` on this task (for tests with
    /// `TestScheduler`).
    public static func mock<R>(scheduler: any SchedulerType, _ body: () throws -> R) rethrows -> R {
        try $mocked.withValue(scheduler) { try body() }
    }

    /// The async form of ``mock(scheduler:_:)``.
    public static func mock<R>(
        scheduler: any SchedulerType, _ body: () async throws -> R
    ) async rethrows -> R {
        try await $mocked.withValue(scheduler) { try await body() }
    }
}
