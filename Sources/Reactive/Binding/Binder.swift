/// An observer that sets elements on a target object: the write side of a widget property.
///
/// - It holds the target weakly: once the target is gone, elements are dropped.
/// - Each element is applied on `scheduler` (at once on the calling thread by default).
/// - `.completed` is ignored, so a binder can outlive the sequence bound to it and be bound again.
/// - `.error` is a programming error (a screen must never be bound to a sequence that can fail):
///   debug builds report it through the grammar-violation handler, release builds ignore it, as
///   RxSwift's binder is fatal in debug and logs in release.
///
/// ```swift
/// let enabled = Binder(button) { button, isEnabled in button.isEnabled = isEnabled }
/// viewModel.loginEnabled.bind(to: enabled).disposed(by: bag)
/// ```
public struct Binder<Value: Sendable>: ObserverType {
    @usableFromInline let binding: @Sendable (Event<Value>) -> Void

    /// A binder that applies `binding` to `target` for each element, on `scheduler`.
    public init<Target: AnyObject & Sendable>(
        _ target: Target,
        scheduler: any ImmediateSchedulerType = ImmediateScheduler.instance,
        binding: @escaping @Sendable (Target, Value) -> Void
    ) {
        let reference = WeakReference(target)
        self.binding = { event in
            switch event {
            case .next(let element):
                _ = scheduler.schedule(element) { element in
                    if let target = reference.object { binding(target, element) }
                    return Disposables.create()
                }
            case .error(let error):
                reportBindingError(error)
            case .completed:
                break
            }
        }
    }

    /// Applies `.next` to the target; ignores `.completed`; reports `.error` in debug builds.
    @inlinable
    public func on(_ event: Event<Value>) { binding(event) }

    @inlinable
    public func asObserver() -> AnyObserver<Value> { AnyObserver(eventHandler: binding) }
}

/// A weak reference that can cross threads.
struct WeakReference<Object: AnyObject & Sendable>: Sendable {
    weak let object: Object?

    init(_ object: Object) {
        self.object = object
    }
}

/// Reports an error that reached a binding (a binder, `bind(onNext:)`, a control): a programming
/// error in debug builds, ignored in release builds.
@usableFromInline
func reportBindingError(_ error: any Error) {
    #if DEBUG
        GrammarCheck.report("binding error: \(error)")
    #endif
}

extension Binder {
    /// A binder whose binding runs isolated to `scheduler`'s actor: inline when the element arrives
    /// while running on the actor (a `Driver` made for it delivers there), otherwise queued onto
    /// it. Nothing happens once the actor is gone.
    ///
    /// ```swift
    /// let tip = Binder(scheduler) { (screen: isolated LoginScreen, text: String) in screen.tip = text }
    /// ```
    public init<A: Actor>(
        _ scheduler: ActorScheduler<A>, binding: @escaping @Sendable (isolated A, Value) -> Void
    ) {
        self.binding = { event in
            switch event {
            case .next(let element):
                scheduler.schedule(isolated: { actor in binding(actor, element) })
            case .error(let error):
                reportBindingError(error)
            case .completed:
                break
            }
        }
    }
}
