/// Something that is both an observable sequence and an observer of the same events: events sent to
/// its observer side are broadcast to its subscribers.
///
/// `multicast` accepts any subject; the module's subjects are ``PublishSubject``,
/// ``BehaviorSubject`` and ``ReplaySubject``.
public protocol SubjectType<Element>: ObservableType {
    /// The observer that feeds the subject.
    associatedtype Observer: ObserverType

    /// The observer side of the subject.
    func asObserver() -> Observer
}

extension PublishSubject: SubjectType {}
