public import Synchronization

/// Stands between a replaying source (``BehaviorSubject``, ``ReplaySubject``, `share(replay:)`)
/// and one new subscriber, so the subscriber receives the replayed events before any live event.
///
/// The source inserts the gate in its observer list and takes the replay snapshot under its own
/// lock, then calls ``replay(_:)`` *after* unlocking (no lock is held while calling out). Live
/// events that reach the gate while the replay is being delivered (from another thread, or from
/// the subscriber itself feeding the source) are kept in a backlog and delivered right after it, in
/// order. Once the backlog is drained the gate opens and live events pass straight through, at the
/// cost of one atomic load.
///
/// The replay is delivered synchronously inside `subscribe`, as in RxSwift, even when the subscriber
/// subscribes while the source is delivering an event.
@usableFromInline
final class ReplayingObserver<Element: Sendable>: ObserverType {
    @usableFromInline let observer: AnyObserver<Element>
    @usableFromInline let isOpen = Atomic<Bool>(false)
    /// Set in `init`, not here: a class's initial values are not inlined, so they would run generically.
    @usableFromInline let backlog: Mutex<[Event<Element>]>

    @inlinable
    init(_ observer: AnyObserver<Element>) {
        self.observer = observer
        backlog = Mutex([])
    }

    @inlinable
    func on(_ event: Event<Element>) {
        if isOpen.load(ordering: .acquiring) {
            observer.on(event)
            return
        }
        let queued = backlog.withLock { backlog in
            // The replaying thread opens the gate under this lock once the backlog is empty.
            guard !isOpen.load(ordering: .relaxed) else { return false }
            backlog.append(event)
            return true
        }
        if !queued { observer.on(event) }
    }

    /// Delivers `events`, then whatever arrived meanwhile, then opens the gate.
    @inlinable
    func replay(_ events: [Event<Element>]) {
        var batch = events
        repeat {
            for event in batch { observer.on(event) }
            batch.removeAll(keepingCapacity: true)
        } while backlog.withLock({ backlog in
            if backlog.isEmpty {
                isOpen.store(true, ordering: .releasing)
                return false
            }
            swap(&batch, &backlog)
            return true
        })
    }
}

/// The last `limit` elements a replaying source has seen (all of them when unbounded). The one
/// element of a buffer of one (`share(replay: 1)`, every `Driver`) is kept inline, in no array.
@usableFromInline
struct ReplayBuffer<Element: Sendable>: Sendable {
    /// How many elements are kept; `Int.max` keeps everything.
    @usableFromInline let limit: Int
    /// The elements; once `limit` is reached it is a ring whose oldest element is at `head`. Unused
    /// when `limit` is 1.
    @usableFromInline var storage: [Element] = []
    @usableFromInline var head = 0
    /// The element of a buffer of one.
    @usableFromInline var only: Element?

    @inlinable
    init(limit: Int) {
        precondition(limit >= 0, "A replay buffer size cannot be negative.")
        self.limit = limit
    }

    @inlinable
    var isEmpty: Bool { limit == 1 ? only == nil : storage.isEmpty }

    @inlinable
    mutating func append(_ element: Element) {
        if limit == 1 {
            only = element
        } else if storage.count < limit {
            storage.append(element)
        } else if limit > 0 {
            storage[head] = element
            head = (head + 1) % limit
        }
    }

    @inlinable
    mutating func removeAll() {
        only = nil
        storage.removeAll()
        head = 0
    }

    /// The kept elements, oldest first, as `.next` events.
    @inlinable
    var events: [Event<Element>] {
        if limit == 1 { return only.map { [.next($0)] } ?? [] }
        var events: [Event<Element>] = []
        events.reserveCapacity(storage.count)
        for element in storage[head...] { events.append(.next(element)) }
        for element in storage[..<head] { events.append(.next(element)) }
        return events
    }
}

/// A source that keeps its subscribers in a ``Bag`` by key: the subjects and `share`.
@usableFromInline
protocol KeyedObserverRemoval: AnyObject, Sendable {
    /// Removes the subscriber with `key`; removing twice, or one the source already let go, is
    /// harmless.
    func removeObserver(_ key: UInt64)
}

/// Removes one subscriber, kept in a `Bag` by key, from a subject (``PublishSubject``,
/// ``BehaviorSubject``, ``ReplaySubject``) or `share`. Removal is idempotent, so the subscription
/// needs no state of its own: it is the source (held strongly, as RxSwift's subscription disposable
/// holds its subject) and the key, which fit in an existential's inline buffer, so subscribing
/// allocates nothing for it.
///
/// `dispose()` is reached through `any Disposable`, where the source's own `unsubscribe` would run
/// unspecialised, with a handful of generic-metadata look-ups per call. So each source makes one
/// removal closure in its inlinable `init` (specialised in the client) and its `removeObserver`
/// only calls that.
@usableFromInline
struct KeyedSubscription: Disposable {
    @usableFromInline let owner: any KeyedObserverRemoval
    @usableFromInline let key: UInt64

    @inlinable
    init(_ owner: any KeyedObserverRemoval, key: UInt64) {
        self.owner = owner
        self.key = key
    }

    @inlinable
    func dispose() { owner.removeObserver(key) }
}
