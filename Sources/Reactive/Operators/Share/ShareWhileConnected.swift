public import Synchronization

/// The shared state behind `share(replay:scope: .whileConnected)`: at most one live connection to
/// the source, its subscribers and its replay buffer.
///
/// It behaves as `multicast(makeSubject: { ReplaySubject.create(bufferSize: replay) }).refCount()`
/// (RxSwift's definition, which RxSwift specialises for `replay` 0 and 1), in one object:
/// - the first subscriber starts a connection (a new *generation*) and subscribes to the source
///   after it was added;
/// - a subscriber joining a live connection first receives the connection's last `replay`
///   elements;
/// - when the last subscriber leaves, the source subscription is disposed and the buffer emptied;
/// - a terminal event ends the connection (source disposed, subscribers detached, buffer emptied)
///   before it is delivered, so a subscriber that subscribes again from its terminal handler starts
///   a new connection.
@usableFromInline
final class ShareWhileConnected<Element: Sendable>: KeyedObserverRemoval {
    @usableFromInline
    struct State {
        /// Identifies the current connection; bumped by each new one.
        @usableFromInline var generation: UInt64 = 0
        /// The subscribers of the current connection; empty exactly when there is no connection.
        /// Its keys grow across connections, so a subscriber of an ended connection is never
        /// mistaken for one of the current connection.
        @usableFromInline var observers = Bag<AnyObserver<Element>>()
        @usableFromInline var buffer: ReplayBuffer<Element>
        /// The current connection, which holds its source subscription (nil when not connected).
        @usableFromInline var upstream: ShareConnection<Element>?

        @inlinable init(buffer: ReplayBuffer<Element>) {
            self.buffer = buffer
        }
    }

    /// Removes a subscriber by key for ``KeyedSubscription``. Made in `init`, so it is specialised in
    /// the client; it refers to the core `unowned(unsafe)` (no cycle), which is sound because it runs
    /// only from ``removeObserver(_:)``, called on a strong reference. Written once, in `init`.
    @usableFromInline nonisolated(unsafe) var removal: (@Sendable (UInt64) -> Void)?
    @usableFromInline let source: Observable<Element>
    @usableFromInline let state: Mutex<State>

    @inlinable
    init(source: Observable<Element>, replay: Int) {
        self.source = source
        state = Mutex(State(buffer: ReplayBuffer(limit: replay)))
        removal = { [unowned(unsafe) self] key in self.unsubscribe(key) }
    }

    @usableFromInline
    func removeObserver(_ key: UInt64) { removal?(key) }

    /// Inlinable so that the connection subscribed to the source, and the gate wrapped around a
    /// late subscriber, which every event goes through, are specialised in the client.
    @inlinable
    func subscribe(_ observer: AnyObserver<Element>) -> any Disposable {
        let joined: Joined = state.withLock { state in
            var connect: ShareConnection<Element>?
            if state.observers.isEmpty {
                state.generation &+= 1
                state.buffer.removeAll()
                connect = ShareConnection(core: self, generation: state.generation)
                state.upstream = connect
            }
            var joined = Joined(generation: state.generation, key: 0, connect: connect)
            if state.buffer.isEmpty {
                joined.key = state.observers.insert(observer)
            } else {
                let gate = ReplayingObserver(observer)
                joined.key = state.observers.insert(AnyObserver(gate))
                joined.gate = gate
                joined.replay = state.buffer.events
            }
            return joined
        }
        if let gate = joined.gate {
            gate.replay(joined.replay)
            // Replayed: the observer takes the gate's place, which is freed.
            state.withLock { $0.observers.replace(joined.key, with: observer) }
        }
        if let connection = joined.connect {
            connection.upstream.assign(source.subscribe(connection))
        }
        return KeyedSubscription(self, key: joined.key)
    }

    /// What `subscribe` did under the lock.
    @usableFromInline
    struct Joined {
        @usableFromInline var generation: UInt64
        @usableFromInline var key: UInt64
        @usableFromInline var gate: ReplayingObserver<Element>?
        @usableFromInline var replay: [Event<Element>] = []
        /// Set for the first subscriber: the new connection, to subscribe to the source.
        @usableFromInline var connect: ShareConnection<Element>?

        @inlinable
        init(generation: UInt64, key: UInt64, connect: ShareConnection<Element>?) {
            self.generation = generation
            self.key = key
            self.connect = connect
        }
    }

    /// Records an event of connection `generation` and returns who to deliver it to, plus the
    /// source subscription to dispose when the event ends the connection.
    @inlinable
    func record(_ event: Event<Element>, generation: UInt64)
        -> (observers: Bag<AnyObserver<Element>>, finished: (any Disposable)?)
    {
        state.withLock { state in
            guard generation == state.generation, let upstream = state.upstream else { return (Bag(), nil) }
            if case .next(let element) = event {
                state.buffer.append(element)
                return (state.observers, nil)
            }
            let observers = state.observers
            state.observers.removeAll()
            state.buffer.removeAll()
            state.upstream = nil
            return (observers, upstream)
        }
    }

    /// Removes a subscriber; the last one out disconnects. A subscriber of an ended connection was
    /// already detached (its key is not among the current connection's).
    @inlinable
    func unsubscribe(_ key: UInt64) {
        let disconnect: ShareConnection<Element>? = state.withLock { state in
            guard state.observers.remove(key) != nil, state.observers.isEmpty else { return nil }
            state.buffer.removeAll()
            defer { state.upstream = nil }
            return state.upstream
        }
        disconnect?.dispose()
    }
}

/// One connection of a `share(…, scope: .whileConnected)`: the observer it subscribes to the
/// source and the slot holding that subscription, in one object.
@usableFromInline
final class ShareConnection<Element: Sendable>: ObserverType, Cancelable {
    @usableFromInline let core: ShareWhileConnected<Element>
    @usableFromInline let generation: UInt64
    /// The subscription to the source.
    @usableFromInline let upstream = SingleAssignmentState()
    @usableFromInline let resource = ResourceToken()

    @inlinable
    init(core: ShareWhileConnected<Element>, generation: UInt64) {
        self.core = core
        self.generation = generation
    }

    @inlinable
    func on(_ event: Event<Element>) {
        let (observers, finished) = core.record(event, generation: generation)
        finished?.dispose()
        observers.forEach { $0.on(event) }
    }

    @inlinable var isDisposed: Bool { upstream.isDisposed }
    @inlinable func dispose() { upstream.dispose() }
}
