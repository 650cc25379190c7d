/// How long the subject behind `share(replay:scope:)` lives, and so what a late subscriber sees.
public enum SubjectLifetimeScope: Sendable {
    /// Each connection to the source has its own replay buffer: when the subscriber count drops to
    /// zero the source is disposed and the buffer emptied, and a terminal event ends the connection
    /// without being remembered, so the next subscriber connects again to a fresh source
    /// subscription (`retry` and `repeat` downstream work as expected). The recommended default.
    case whileConnected

    /// One subject serves every connection, for the lifetime of the shared observable: after a
    /// disconnection the next subscriber still gets the elements the subject kept (possibly stale),
    /// and after a terminal event every later subscriber gets the kept elements and that terminal
    /// event at once, without subscribing to the source again.
    case forever
}

extension ObservableType {
    /// Shares one subscription to the source among all subscribers, replaying the last `replay`
    /// elements to each new subscriber.
    ///
    /// The source is subscribed when the first subscriber arrives and disposed when the last one
    /// leaves or when it terminates. What a later subscriber sees depends on `scope`:
    /// - `.whileConnected`: the elements of the current connection only; after a disconnection or
    ///   a terminal event it connects again (the terminal event is not replayed).
    /// - `.forever`: the elements the one subject kept (equivalent to
    ///   `multicast(ReplaySubject.create(bufferSize: replay)).refCount()`, or a `PublishSubject`
    ///   for `replay == 0`); after a terminal event, the kept elements and the terminal event.
    ///
    /// - Parameters:
    ///   - replay: how many of the latest elements to replay (≥ 0).
    ///   - scope: the lifetime of the sharing subject.
    @inlinable
    public func share(replay: Int = 0, scope: SubjectLifetimeScope = .whileConnected) -> Observable<Element> {
        precondition(replay >= 0, "share(replay:scope:) needs replay >= 0")
        switch scope {
        case .forever:
            if replay == 0 { return multicast(PublishSubject<Element>()).refCount() }
            return multicast(ReplaySubject<Element>.create(bufferSize: replay)).refCount()
        case .whileConnected:
            let core = ShareWhileConnected(source: asObservable(), replay: replay)
            return Observable(unsafeSubscribe: { core.subscribe($0) })
        }
    }
}
