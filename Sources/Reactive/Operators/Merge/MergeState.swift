/// The state of one `merge`/`flatMap` subscription, with its transitions.
///
/// Each transition runs under the sink's lock, queues what the subscriber must see and returns what
/// the sink must do afterwards, outside the lock.
@usableFromInline
struct MergeState<Element: Sendable>: SerialDeliveryState {
    /// Events waiting to go downstream.
    @usableFromInline var delivery = SerialDelivery<Element>()
    /// Inner sequences subscribed (or about to be) and not yet completed.
    @usableFromInline var active = 0
    /// Whether the outer sequence (or the fixed list of sources) has no more inner sequences to give.
    @usableFromInline var outerDone = false
    /// Inner sequences waiting for a free slot (`merge(maxConcurrent:)`); `waitingHead` is the first.
    @usableFromInline var waiting: [Observable<Element>] = []
    @usableFromInline var waitingHead = 0

    @inlinable
    init() {}

    /// The outer sequence produced `inner`: subscribe it if a slot is free, else keep it waiting.
    @inlinable
    mutating func arrive(_ inner: Observable<Element>, maxConcurrent: Int) -> Bool {
        guard !delivery.isTerminated else { return false }
        if active < maxConcurrent {
            active += 1
            return true
        }
        waiting.append(inner)
        return false
    }

    /// The outer sequence completed: the result completes now if no inner sequence is active.
    @inlinable
    mutating func completeOuter() -> MergeAction<Element> {
        guard !delivery.isTerminated else { return .none }
        outerDone = true
        return completeIfIdle()
    }

    /// An inner sequence completed: its slot goes to the next waiting sequence, if any; otherwise the
    /// result completes if the outer sequence is done and nothing else is active.
    @inlinable
    mutating func completeInner() -> MergeAction<Element> {
        guard !delivery.isTerminated else { return .none }
        if waitingHead < waiting.count {
            let next = waiting[waitingHead]
            waitingHead += 1
            if waitingHead == waiting.count {
                waiting.removeAll(keepingCapacity: true)
                waitingHead = 0
            }
            return .subscribe(next)
        }
        active -= 1
        return completeIfIdle()
    }

    /// A source (outer or inner) or the selector failed.
    @inlinable
    mutating func fail(_ error: any Error) -> MergeAction<Element> {
        guard !delivery.isTerminated else { return .none }
        delivery.enqueue(.error(error))
        return .finish
    }

    @inlinable
    mutating func completeIfIdle() -> MergeAction<Element> {
        guard outerDone, active == 0 else { return .none }
        delivery.enqueue(.completed)
        return .finish
    }
}

/// What a `merge`/`flatMap` sink does after a transition, outside its lock.
@usableFromInline
enum MergeAction<Element: Sendable>: Sendable {
    /// Nothing beyond delivering what was queued.
    case none
    /// Subscribe this waiting inner sequence in the slot just freed.
    case subscribe(Observable<Element>)
    /// A terminal event was queued: dispose the outer and every inner subscription.
    case finish
}
