import Synchronization

/// Something that holds a resource and releases it when disposed.
///
/// Disposing a subscription is how a consumer cancels the work behind it. `dispose()` may be called
/// from any thread, any number of times; only the first call has an effect.
public protocol Disposable: Sendable {
    /// Releases the resource. Idempotent.
    func dispose()

    /// Whether this disposable is known to be disposed: ``Cancelable/isDisposed`` for a
    /// ``Cancelable`` (the default there), `true` for `Disposables.create()` (it has nothing to
    /// release), `false` for a disposable that cannot tell (the default for every other one). A ``DisposeBag`` asks it to drop entries that are finished; it is a
    /// requirement so that asking costs one call, where a cast of `any Disposable` to
    /// `any Cancelable` costs a conformance look-up in the runtime.
    var isKnownDisposed: Bool { get }
}

extension Disposable {
    /// `false`: a plain disposable cannot tell whether it was disposed.
    @inlinable
    public var isKnownDisposed: Bool { false }
}

/// A disposable that can tell whether it was disposed.
public protocol Cancelable: Disposable {
    /// Whether `dispose()` has been called.
    var isDisposed: Bool { get }
}

extension Cancelable {
    /// ``isDisposed``.
    @inlinable
    public var isKnownDisposed: Bool { isDisposed }
}

/// Factories for the common disposables.
public enum Disposables {
    /// A disposable that does nothing.
    @inlinable
    public static func create() -> any Disposable { NopDisposable() }

    /// A disposable that runs `action` once, on the first `dispose()`.
    public static func create(with action: @escaping @Sendable () -> Void) -> any Cancelable {
        AnonymousDisposable(action)
    }

    /// A disposable that disposes both `first` and `second` once.
    public static func create(_ first: any Disposable, _ second: any Disposable) -> any Cancelable {
        BinaryDisposable(first, second)
    }

    /// A disposable that disposes all three once.
    public static func create(
        _ first: any Disposable, _ second: any Disposable, _ third: any Disposable
    ) -> any Cancelable {
        CompositeDisposable(first, second, third)
    }

    /// A disposable that disposes every element of `disposables` once.
    public static func create(_ disposables: [any Disposable]) -> any Cancelable {
        switch disposables.count {
        case 2: return BinaryDisposable(disposables[0], disposables[1])
        default: return CompositeDisposable(disposables: disposables)
        }
    }
}

/// The disposable that has nothing to release. It counts as known to be disposed (disposing it
/// would change nothing), so a subscription that is handed one as its source's need not keep it,
/// and a `DisposeBag` drops it.
@usableFromInline
struct NopDisposable: Disposable {
    @usableFromInline static let instance = NopDisposable()
    @inlinable init() {}
    @inlinable func dispose() {}
    @inlinable var isKnownDisposed: Bool { true }
}

/// Runs an action on the first `dispose()`.
final class AnonymousDisposable: Cancelable {
    private let action: Mutex<(@Sendable () -> Void)?>
    private let disposed = Atomic<Bool>(false)

    init(_ action: @escaping @Sendable () -> Void) {
        self.action = Mutex(action)
    }

    var isDisposed: Bool { disposed.load(ordering: .acquiring) }

    func dispose() {
        guard !disposed.exchange(true, ordering: .acquiringAndReleasing) else { return }
        let action = self.action.withLock { action in
            defer { action = nil }
            return action
        }
        action?()
    }
}

/// Disposes two disposables once.
final class BinaryDisposable: Cancelable {
    private let pair: Mutex<(any Disposable, any Disposable)?>
    private let disposed = Atomic<Bool>(false)

    init(_ first: any Disposable, _ second: any Disposable) {
        pair = Mutex((first, second))
    }

    var isDisposed: Bool { disposed.load(ordering: .acquiring) }

    func dispose() {
        guard !disposed.exchange(true, ordering: .acquiringAndReleasing) else { return }
        let pair = self.pair.withLock { pair in
            defer { pair = nil }
            return pair
        }
        pair?.0.dispose()
        pair?.1.dispose()
    }
}

/// A disposable that only records that it was disposed.
public final class BooleanDisposable: Cancelable {
    private let disposed: Atomic<Bool>

    /// A disposable that is already disposed.
    public static let disposed = BooleanDisposable(isDisposed: true)

    /// Creates a disposable, disposed or not.
    public init(isDisposed: Bool = false) {
        disposed = Atomic(isDisposed)
    }

    public var isDisposed: Bool { disposed.load(ordering: .acquiring) }

    public func dispose() { disposed.store(true, ordering: .releasing) }
}
