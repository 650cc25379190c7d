/// The state of one `switchLatest`/`flatMapLatest` subscription, with its transitions.
///
/// Only events of the latest inner subscription count; it is kept here (as `Inner`, compared by
/// identity) until it completes or a newer one replaces it. Each transition runs under the sink's
/// lock, queues what the subscriber must see and says whether the subscription is finished.
@usableFromInline
struct SwitchState<Element: Sendable, Inner: AnyObject & Sendable>: SerialDeliveryState {
    /// Events waiting to go downstream.
    @usableFromInline var delivery = SerialDelivery<Element>()
    /// The latest inner subscription while it runs.
    @usableFromInline var latest: Inner?
    /// Whether the outer sequence completed.
    @usableFromInline var outerDone = false
    /// Whether the sources were disposed: a new inner subscription is disposed at once.
    @usableFromInline var sourcesDisposed = false

    @inlinable
    init() {}

    /// What `switchTo` decided.
    @usableFromInline
    enum Step: Sendable {
        /// The subscription is finished: do not subscribe.
        case finished
        /// Dispose `previous`, then subscribe the new inner sequence; unless `isCurrent`, the
        /// sources were disposed and the new subscription is to be disposed at once.
        case switched(previous: Inner?, isCurrent: Bool)
    }

    /// The outer sequence produced a new inner sequence, to be observed by `inner`.
    @inlinable
    mutating func switchTo(_ inner: Inner) -> Step {
        guard !delivery.isTerminated else { return .finished }
        guard !sourcesDisposed else { return .switched(previous: nil, isCurrent: false) }
        defer { latest = inner }
        return .switched(previous: latest, isCurrent: true)
    }

    /// The outer sequence completed: the result completes now unless an inner sequence is running.
    @inlinable
    mutating func completeOuter() -> Bool {
        guard !delivery.isTerminated else { return false }
        outerDone = true
        guard latest == nil else { return false }
        delivery.enqueue(.completed)
        return true
    }

    /// `inner` sent `event`; ignored unless it is the latest. Returns whether the subscription is
    /// finished.
    @inlinable
    mutating func receive(_ event: Event<Element>, from inner: Inner) -> Bool {
        guard inner === latest, !delivery.isTerminated else { return false }
        switch event {
        case .next:
            delivery.enqueue(event)
            return false
        case .error:
            delivery.enqueue(event)
            return true
        case .completed:
            latest = nil
            guard outerDone else { return false }
            delivery.enqueue(.completed)
            return true
        }
    }

    /// The outer sequence or the selector failed. Returns whether the subscription is finished.
    @inlinable
    mutating func fail(_ error: any Error) -> Bool {
        guard !delivery.isTerminated else { return false }
        delivery.enqueue(.error(error))
        return true
    }

    /// The sources are being disposed: returns the latest inner subscription to dispose.
    @inlinable
    mutating func detachLatest() -> Inner? {
        sourcesDisposed = true
        defer { latest = nil }
        return latest
    }
}
