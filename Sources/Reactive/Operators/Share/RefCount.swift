public import Synchronization

extension ConnectableObservableType {
    /// An observable that connects the source when its first subscriber arrives and disconnects
    /// when the last one leaves, or as soon as the shared connection delivers a terminal event.
    ///
    /// A subscriber arriving after a disconnection (or after a terminal event) connects again.
    /// Each subscriber first subscribes to the connectable source and only then, if it is the first,
    /// connects; a subscriber that receives a terminal event while subscribing (a stopped subject
    /// replays it) does not connect at all.
    @inlinable
    public func refCount() -> Observable<Element> {
        let core = RefCountCore(source: self)
        return Observable(unsafeSubscribe: { downstream in
            let sink = RefCountSink(downstream: downstream, core: core)
            sink.upstream.assign(core.source.subscribe(sink))
            if let connection = core.register(sink) {
                connection.setDisposable(core.source.connect())
            }
            return sink
        })
    }
}

/// The state one `refCount()` observable shares across its subscribers.
@usableFromInline
final class RefCountCore<Source: ConnectableObservableType>: Sendable {
    @usableFromInline
    struct State {
        /// Subscribers counted on the current connection.
        @usableFromInline var count = 0
        /// Increases whenever a connection ends, so that subscribers of an ended connection leave
        /// the next one alone.
        @usableFromInline var connectionID = 0
        /// The current connection; assigned once `connect()` returns (it runs outside the lock).
        @usableFromInline var connection: SingleAssignmentDisposable?

        @inlinable init() {}
    }

    @usableFromInline let source: Source
    /// Set in `init`, not here: a class's initial values are not inlined, so they would run generically.
    @usableFromInline let state: Mutex<State>

    @inlinable
    init(source: Source) {
        self.source = source
        state = Mutex(State())
    }

    /// Counts `sink` on the current connection; returns the slot to connect into if it is the
    /// first. A sink that already finished (it received a terminal event while subscribing) is not
    /// counted.
    @inlinable
    func register(_ sink: RefCountSink<Source>) -> SingleAssignmentDisposable? {
        state.withLock { state in
            guard !sink.upstream.isDisposed else { return nil }
            sink.connectionID.store(state.connectionID, ordering: .relaxed)
            state.count += 1
            guard state.count == 1 else { return nil }
            let slot = SingleAssignmentDisposable()
            state.connection = slot
            return slot
        }
    }

    /// Uncounts `sink` if it was counted on the current connection; returns the connection to
    /// dispose if it was the last subscriber. (The sink's connection ID is read under the lock, so
    /// a sink being counted concurrently is either seen counted or not counted at all.)
    @usableFromInline
    func release(_ sink: RefCountSink<Source>) -> (any Disposable)? {
        state.withLock { state in
            let id = sink.connectionID.load(ordering: .relaxed)
            guard id == state.connectionID, state.count > 0 else { return nil }
            state.count -= 1
            guard state.count == 0 else { return nil }
            defer { state.connection = nil }
            return state.connection
        }
    }

    /// Ends the connection `sink` was counted on, after its terminal event; returns the connection
    /// to dispose if it was still the current one.
    @usableFromInline
    func terminate(_ sink: RefCountSink<Source>) -> (any Disposable)? {
        state.withLock { state in
            guard sink.connectionID.load(ordering: .relaxed) == state.connectionID else { return nil }
            state.count = 0
            state.connectionID &+= 1
            defer { state.connection = nil }
            return state.connection
        }
    }
}

/// One subscriber of a `refCount()` observable.
@usableFromInline
final class RefCountSink<Source: ConnectableObservableType>: ObserverType, Cancelable {
    @usableFromInline typealias Element = Source.Element

    @usableFromInline let downstream: AnyObserver<Element>
    @usableFromInline let core: RefCountCore<Source>
    /// The subscription to the connectable source.
    @usableFromInline let upstream = SingleAssignmentState()
    /// The connection this sink was counted on; -1 until it is counted (and forever if it never is).
    @usableFromInline let connectionID = Atomic<Int>(-1)
    @usableFromInline let resource = ResourceToken()

    @inlinable
    init(downstream: AnyObserver<Element>, core: RefCountCore<Source>) {
        self.downstream = downstream
        self.core = core
    }

    @inlinable
    func on(_ event: Event<Element>) {
        guard !upstream.isDisposed else { return }
        if case .next = event {
            downstream.on(event)
            return
        }
        core.terminate(self)?.dispose()
        downstream.on(event)
        dispose()
    }

    @usableFromInline var isDisposed: Bool { upstream.isDisposed }

    @usableFromInline
    func dispose() {
        guard upstream.dispose() else { return }
        core.release(self)?.dispose()
    }
}
