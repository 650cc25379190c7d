public import Synchronization

extension ObservableType {
    /// Multicasts the source through `subject`: subscribers subscribe to `subject`, and
    /// `connect()` subscribes `subject` to the source.
    ///
    /// The same subject serves every connection, so a subject that replays (``ReplaySubject``)
    /// keeps what it saw across disconnections, and once it has received a terminal event it
    /// replays it to every later subscriber.
    @inlinable
    public func multicast<Subject: SubjectType>(_ subject: Subject) -> ConnectableObservable<Subject.Element>
    where Subject.Observer.Element == Element {
        ConnectableObservable(core: MulticastCore(source: asObservable(), makeSubject: { subject }))
    }

    /// Multicasts the source through a subject made by `makeSubject`: subscribers subscribe to the
    /// current subject, and `connect()` subscribes it to the source.
    ///
    /// A subject is made on the first subscription or connection, and dropped when that
    /// connection is disposed or the source terminates, so the next subscriber or connection gets
    /// a fresh one.
    @inlinable
    public func multicast<Subject: SubjectType>(
        makeSubject: @escaping @Sendable () -> Subject
    ) -> ConnectableObservable<Subject.Element>
    where Subject.Observer.Element == Element {
        ConnectableObservable(core: MulticastCore(source: asObservable(), makeSubject: makeSubject))
    }

    /// A connectable sequence that shares one subscription to the source through a
    /// ``PublishSubject`` per connection: `multicast(makeSubject: { PublishSubject() })`.
    @inlinable
    public func publish() -> ConnectableObservable<Element> {
        multicast(makeSubject: { PublishSubject<Element>() })
    }

    /// A connectable sequence that shares one subscription to the source and replays the last
    /// `bufferSize` elements of the current connection to each subscriber:
    /// `multicast(makeSubject: { ReplaySubject.create(bufferSize: bufferSize) })`.
    @inlinable
    public func replay(_ bufferSize: Int) -> ConnectableObservable<Element> {
        multicast(makeSubject: { ReplaySubject<Element>.create(bufferSize: bufferSize) })
    }

    /// Like ``replay(_:)`` with an unbounded buffer.
    @inlinable
    public func replayAll() -> ConnectableObservable<Element> {
        multicast(makeSubject: { ReplaySubject<Element>.createUnbounded() })
    }
}

/// The shared state behind a multicast: the current subject and the live connection.
@usableFromInline
final class MulticastCore<Subject: SubjectType>: ConnectableCore
where Subject.Observer.Element: Sendable {
    @usableFromInline typealias Element = Subject.Element
    @usableFromInline typealias SourceElement = Subject.Observer.Element

    @usableFromInline
    struct State {
        /// The subject subscribers use now; made lazily, dropped when a connection ends.
        @usableFromInline var subject: Subject?
        /// The live connection, if any.
        @usableFromInline var connection: MulticastConnection<Subject>?

        @inlinable init() {}
    }

    @usableFromInline let source: Observable<SourceElement>
    @usableFromInline let makeSubject: @Sendable () -> Subject
    /// Set in `init`, not here: a class's initial values are not inlined, so they would run generically.
    @usableFromInline let state: Mutex<State>

    @inlinable
    init(source: Observable<SourceElement>, makeSubject: @escaping @Sendable () -> Subject) {
        self.source = source
        self.makeSubject = makeSubject
        state = Mutex(State())
    }

    /// The current subject, made if there is none (outside the lock: `makeSubject` is user code).
    @inlinable
    func currentSubject() -> Subject {
        if let subject = state.withLock({ $0.subject }) { return subject }
        let fresh = makeSubject()
        return state.withLock { state in
            if let subject = state.subject { return subject }
            state.subject = fresh
            return fresh
        }
    }

    @inlinable
    func subscribe(_ observer: AnyObserver<Element>) -> any Disposable {
        currentSubject().subscribe(observer)
    }

    @inlinable
    func connect() -> any Disposable {
        var fresh: Subject?
        while true {
            let outcome: ConnectOutcome = state.withLock { state in
                if let connection = state.connection { return .existing(connection) }
                guard let subject = state.subject ?? fresh else { return .needsSubject }
                state.subject = subject
                let connection = MulticastConnection(core: self, subject: subject.asObserver())
                state.connection = connection
                return .created(connection)
            }
            switch outcome {
            case .existing(let connection):
                return connection
            case .created(let connection):
                connection.upstream.assign(source.subscribe(connection))
                return connection
            case .needsSubject:
                fresh = makeSubject()
            }
        }
    }

    /// What `connect` found under the lock.
    @usableFromInline
    enum ConnectOutcome {
        case existing(MulticastConnection<Subject>)
        case created(MulticastConnection<Subject>)
        case needsSubject
    }

    /// Forgets `connection` (and the subject it fed) if it is still the live one.
    @usableFromInline
    func detach(_ connection: MulticastConnection<Subject>) {
        state.withLock { state in
            guard state.connection === connection else { return }
            state.connection = nil
            state.subject = nil
        }
    }
}

/// One connection of a multicast: forwards the source's events to the subject until disposed or
/// until the source terminates (then it disposes itself *before* forwarding the terminal event, so
/// a subscriber that reconnects from its terminal handler gets a fresh connection).
@usableFromInline
final class MulticastConnection<Subject: SubjectType>: ObserverType, Cancelable
where Subject.Observer.Element: Sendable {
    @usableFromInline typealias Element = Subject.Observer.Element

    @usableFromInline let core: MulticastCore<Subject>
    @usableFromInline let subject: Subject.Observer
    @usableFromInline let upstream = SingleAssignmentState()
    @usableFromInline let resource = ResourceToken()

    @inlinable
    init(core: MulticastCore<Subject>, subject: Subject.Observer) {
        self.core = core
        self.subject = subject
    }

    @inlinable
    func on(_ event: Event<Element>) {
        guard !upstream.isDisposed else { return }
        if event.isStopEvent { dispose() }
        subject.on(event)
    }

    @usableFromInline var isDisposed: Bool { upstream.isDisposed }

    @usableFromInline
    func dispose() {
        guard upstream.dispose() else { return }
        core.detach(self)
    }
}
