public import Synchronization

/// Serialises delivery to one downstream observer for sinks fed from several places at once
/// (several sources, a source and a timer, …), without holding a lock while calling out.
///
/// The sink keeps a `SerialDelivery` inside the state its `Mutex` protects. A transition appends the
/// events it produces with `enqueue` *under the lock* (so the order of events is the order of
/// transitions) and then, after unlocking, calls `Mutex.deliver(to:)`. Whoever finds nobody else
/// delivering becomes the deliverer and drains the queue until it is empty; everybody else returns
/// at once, their events delivered by the one already delivering. A reentrant call (downstream
/// feeding one of the sink's own sources) is queued the same way and delivered when the current
/// delivery returns, so no lock is ever taken twice and no event is delivered concurrently.
///
/// After a terminal event has been enqueued, further enqueues are dropped, which keeps the grammar
/// `next* (error | completed)?` for the downstream observer.
@usableFromInline
struct SerialDelivery<Element: Sendable> {
    @usableFromInline var pending: [Event<Element>] = []
    @usableFromInline var isDelivering = false
    /// A terminal event was enqueued.
    @usableFromInline var isTerminated = false

    @inlinable init() {}

    /// Queues an event for delivery (dropped after a terminal event).
    @inlinable
    mutating func enqueue(_ event: Event<Element>) {
        guard !isTerminated else { return }
        if event.isStopEvent { isTerminated = true }
        pending.append(event)
    }

    /// Takes the queued events if nobody is delivering them, making the caller the deliverer.
    @inlinable
    mutating func claim(into buffer: inout [Event<Element>]) -> Bool {
        guard !isDelivering, !pending.isEmpty else { return false }
        isDelivering = true
        swap(&buffer, &pending)
        return true
    }

    /// Takes further queued events for the current deliverer, or releases the delivery role.
    ///
    /// When nothing more is queued, the deliverer's emptied buffer becomes the queue again, so its
    /// capacity is reused and a steady stream of events allocates nothing.
    @inlinable
    mutating func next(into buffer: inout [Event<Element>]) -> Bool {
        buffer.removeAll(keepingCapacity: true)
        swap(&buffer, &pending)
        guard buffer.isEmpty else { return true }
        isDelivering = false
        return false
    }
}

/// State that carries a ``SerialDelivery`` for its sink's downstream.
@usableFromInline
protocol SerialDeliveryState<Output> {
    associatedtype Output: Sendable
    var delivery: SerialDelivery<Output> { get set }
}

extension Mutex where Value: SerialDeliveryState {
    /// Delivers whatever is queued to `downstream`, unless another caller is already delivering
    /// (then that caller delivers it). Never holds the lock while calling `downstream`.
    @inlinable
    func deliver<Observer: ObserverType>(to downstream: Observer)
    where Observer.Element == Value.Output {
        var buffer: [Event<Value.Output>] = []
        guard withLock({ $0.delivery.claim(into: &buffer) }) else { return }
        drain(&buffer, to: downstream)
    }

    /// Runs `transition` under the lock, then delivers what is queued as ``deliver(to:)`` does, and
    /// returns the transition's result. The same as a `withLock` followed by `deliver(to:)`, with one
    /// lock fewer: the transition and the claim to deliver share one critical section.
    @inlinable
    func transition<Result: Sendable, Observer: ObserverType>(
        _ transition: (inout Value) -> Result, deliveringTo downstream: Observer
    ) -> Result where Observer.Element == Value.Output {
        var buffer: [Event<Value.Output>] = []
        let (result, claimed) = withLock { state in
            let result = transition(&state)
            return (result, state.delivery.claim(into: &buffer))
        }
        if claimed { drain(&buffer, to: downstream) }
        return result
    }

    /// Delivers `buffer`, claimed by the caller, then whatever is queued meanwhile, until the queue
    /// is empty; then gives up the delivery role.
    @inlinable
    func drain<Observer: ObserverType>(_ buffer: inout [Event<Value.Output>], to downstream: Observer)
    where Observer.Element == Value.Output {
        repeat {
            for event in buffer { downstream.on(event) }
        } while withLock({ $0.delivery.next(into: &buffer) })
    }
}
