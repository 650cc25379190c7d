/// The state of one `switchLatest`/`flatMapLatest` subscription, with its transitions.
///
/// Inner sequences are numbered; only events of the latest one count. Each transition runs under the
/// sink's lock, queues what the subscriber must see and says whether the subscription is finished.
@usableFromInline
struct SwitchState<Element: Sendable>: SerialDeliveryState {
    /// Events waiting to go downstream.
    @usableFromInline var delivery = SerialDelivery<Element>()
    /// The number of the latest inner sequence.
    @usableFromInline var latest: UInt64 = 0
    /// Whether the latest inner sequence is still running.
    @usableFromInline var hasLatest = false
    /// Whether the outer sequence completed.
    @usableFromInline var outerDone = false

    @inlinable
    init() {}

    /// The outer sequence produced a new inner sequence: returns its number, or nil if the
    /// subscription is already finished.
    @inlinable
    mutating func switchToNext() -> UInt64? {
        guard !delivery.isTerminated else { return nil }
        latest &+= 1
        hasLatest = true
        return latest
    }

    /// The outer sequence completed: the result completes now unless an inner sequence is running.
    @inlinable
    mutating func completeOuter() -> Bool {
        guard !delivery.isTerminated else { return false }
        outerDone = true
        guard !hasLatest else { return false }
        delivery.enqueue(.completed)
        return true
    }

    /// Inner sequence `id` sent `event`; ignored unless it is the latest. Returns whether the
    /// subscription is finished.
    @inlinable
    mutating func receive(_ event: Event<Element>, from id: UInt64) -> Bool {
        guard id == latest, !delivery.isTerminated else { return false }
        switch event {
        case .next:
            delivery.enqueue(event)
            return false
        case .error:
            delivery.enqueue(event)
            return true
        case .completed:
            hasLatest = false
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
}
