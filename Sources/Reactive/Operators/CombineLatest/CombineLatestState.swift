/// The state of one `combineLatest` subscription, with its transitions.
///
/// `Values` holds the latest element of every source (a tuple of optionals for the fixed arities, an
/// array of optionals for a collection); `update` closures write one slot. Each transition runs under
/// the sink's lock, queues what the subscriber must see and returns what the sink must do afterwards.
@usableFromInline
struct CombineLatestState<Values: Sendable>: SerialDeliveryState {
    /// Combinations waiting to go downstream (the sink applies the result selector as it delivers).
    @usableFromInline var delivery = SerialDelivery<Values>()
    /// The latest element of each source.
    @usableFromInline var values: Values
    /// Which sources have emitted at least once.
    @usableFromInline var hasValue: [Bool]
    /// Which sources have completed.
    @usableFromInline var isDone: [Bool]
    /// How many sources have emitted at least once.
    @usableFromInline var valueCount = 0
    /// How many sources have completed.
    @usableFromInline var doneCount = 0

    @inlinable
    init(values: Values, arity: Int) {
        self.values = values
        hasValue = Array(repeating: false, count: arity)
        isDone = Array(repeating: false, count: arity)
    }

    /// Source `index` emitted (`update` stores the element). Queues the combination once every source
    /// has emitted; completes if every other source has completed, since no combination can ever
    /// be produced.
    @inlinable
    mutating func receive(at index: Int, update: @Sendable (inout Values) -> Void) -> CombineLatestAction {
        guard !delivery.isTerminated else { return .none }
        update(&values)
        if !hasValue[index] {
            hasValue[index] = true
            valueCount += 1
        }
        if valueCount == hasValue.count {
            delivery.enqueue(.next(values))
            return .none
        }
        let othersDone = doneCount - (isDone[index] ? 1 : 0)
        if othersDone == isDone.count - 1 {
            delivery.enqueue(.completed)
            return .finish
        }
        return .none
    }

    /// Source `index` completed: the whole sequence completes once every source has.
    @inlinable
    mutating func complete(at index: Int) -> CombineLatestAction {
        guard !delivery.isTerminated, !isDone[index] else { return .none }
        isDone[index] = true
        doneCount += 1
        if doneCount == isDone.count {
            delivery.enqueue(.completed)
            return .finish
        }
        return .release(index)
    }

    /// A source failed.
    @inlinable
    mutating func fail(_ error: any Error) -> CombineLatestAction {
        guard !delivery.isTerminated else { return .none }
        delivery.enqueue(.error(error))
        return .finish
    }

    /// There are no sources: the one combination there is (of nothing), then completion.
    @inlinable
    mutating func combineNothing() -> CombineLatestAction {
        delivery.enqueue(.next(values))
        delivery.enqueue(.completed)
        return .finish
    }
}

/// What a `combineLatest` sink does after a transition, outside its lock.
@usableFromInline
enum CombineLatestAction: Equatable, Sendable {
    /// Nothing beyond delivering what was queued.
    case none
    /// Dispose the subscription to the source at this index (it completed).
    case release(Int)
    /// A terminal event was queued: dispose every source subscription.
    case finish
}
