public import Synchronization

extension Observable {
    /// The given elements in order, then completion.
    ///
    /// Each element is sent by its own step on `scheduler`, one step scheduling the next. With the
    /// default ``CurrentThreadScheduler`` the steps start once the whole subscription chain is
    /// wired, so disposing (for example after the third element) stops the iteration.
    ///
    /// ```swift
    /// Observable.of(1, 2, 3)   // 1, 2, 3, completed
    /// ```
    @inlinable
    public static func of(
        _ elements: Element..., scheduler: any ImmediateSchedulerType = CurrentThreadScheduler.instance
    ) -> Observable<Element> {
        from(elements, scheduler: scheduler)
    }

    /// The elements of `array` in order, then completion, one element per step on `scheduler`
    /// (see ``of(_:scheduler:)``).
    @inlinable
    public static func from(
        _ array: [Element], scheduler: any ImmediateSchedulerType = CurrentThreadScheduler.instance
    ) -> Observable<Element> {
        iterate(array, scheduler: scheduler)
    }

    /// The elements of `sequence` in order, then completion, one element per step on `scheduler`
    /// (see ``of(_:scheduler:)``). The sequence may be infinite: `Observable.from(1...)` runs until
    /// it is disposed. Each subscription iterates the sequence from the start.
    @inlinable
    public static func from<S: Sequence & Sendable>(
        _ sequence: S, scheduler: any ImmediateSchedulerType = CurrentThreadScheduler.instance
    ) -> Observable<Element> where S.Element == Element {
        iterate(sequence, scheduler: scheduler)
    }

    /// `of` and `from`: one element per recursive step of `scheduler`, then completion.
    @inlinable
    static func iterate<S: Sequence & Sendable>(
        _ sequence: S, scheduler: any ImmediateSchedulerType
    ) -> Observable<Element> where S.Element == Element {
        Observable(unsafeSubscribe: { downstream in
            let sink = SequenceSink(downstream: downstream, iterator: sequence.makeIterator())
            sink.recursion.assign(
                scheduler.scheduleRecursive(()) { [sink] _, recurse in
                    sink.step { recurse(()) }
                })
            return sink
        })
    }
}

/// The live state of one `of`/`from` subscription: the iterator, advanced one element per step.
@usableFromInline
final class SequenceSink<Iterator: IteratorProtocol>: Cancelable where Iterator.Element: Sendable {
    @usableFromInline let downstream: AnyObserver<Iterator.Element>
    /// Steps run one after another, so the lock is never contended; it only makes the iterator's
    /// mutation safe to share with the scheduler.
    @usableFromInline let iterator: Mutex<Iterator>
    @usableFromInline let recursion = SingleAssignmentState()
    @usableFromInline let resource = ResourceToken()

    @inlinable
    init(downstream: AnyObserver<Iterator.Element>, iterator: consuming sending Iterator) {
        self.downstream = downstream
        self.iterator = Mutex(iterator)
    }

    /// Sends the next element and asks for another step, or completes when the iterator is done.
    @inlinable
    func step(_ recurse: () -> Void) {
        guard !isDisposed else { return }
        if let element = iterator.withLock({ $0.next() }) {
            downstream.on(.next(element))
            if !isDisposed { recurse() }
        } else {
            downstream.on(.completed)
            dispose()
        }
    }

    @inlinable var isDisposed: Bool { recursion.isDisposed }
    @inlinable func dispose() { recursion.dispose() }
}
