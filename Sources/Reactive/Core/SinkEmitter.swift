/// A sink fed from several places whose queued output (see ``SerialDelivery``) reaches its observer
/// through `emit`.
///
/// `Mutex.deliver(to:)` calls `emit` from the one thread delivering at a time, in the order the
/// events were queued, with no lock held. That makes `emit` the place for work that must follow the
/// queue's order but must not run under the sink's lock, such as `combineLatest`'s result selector,
/// and for dropping what is still queued once the subscriber has disposed.
@usableFromInline
protocol EmittingSink<Queued>: AnyObject, Sendable {
    /// What the sink queues for delivery.
    associatedtype Queued: Sendable

    /// Passes one queued event on, or drops it if the subscription is closed.
    func emit(_ event: Event<Queued>)
}

/// The observer a multi-source sink hands to `Mutex.deliver(to:)`: it gives each queued event back
/// to the sink's `emit`.
@usableFromInline
struct SinkEmitter<Sink: EmittingSink>: ObserverType {
    @usableFromInline let sink: Sink

    @inlinable
    init(_ sink: Sink) {
        self.sink = sink
    }

    @inlinable
    func on(_ event: Event<Sink.Queued>) {
        sink.emit(event)
    }
}

/// A multi-source sink whose subscriber can cancel: once the subscriber disposes it, events still
/// queued are dropped rather than delivered, as a sink that forwards directly would stop
/// forwarding. (A terminal event the sink produced itself is still delivered when another thread
/// is draining the queue, because finishing is not cancelling.)
@usableFromInline
protocol CancellableDelivery: EmittingSink {
    /// The subscriber's observer.
    var downstream: AnyObserver<Queued> { get }
    /// Whether the subscriber disposed the subscription.
    var isCancelled: Bool { get }
}

extension CancellableDelivery {
    /// Forwards to the downstream observer unless the subscriber has cancelled.
    @inlinable
    func emit(_ event: Event<Queued>) {
        guard !isCancelled else { return }
        downstream.on(event)
    }
}
