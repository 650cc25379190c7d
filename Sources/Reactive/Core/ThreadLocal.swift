#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A per-thread slot holding a strong reference to an object, for state that belongs to the
/// running thread only (the current-thread trampoline, the actor a drain is running on).
///
/// Swift has no thread-local storage of its own; this is a small owner of a POSIX key. Each value
/// stored is retained until it is replaced, cleared, or its thread exits (the key's destructor
/// releases it).
final class ThreadLocal<Value: AnyObject>: Sendable {
    private let key: pthread_key_t

    init() {
        var key = pthread_key_t()
        let status = pthread_key_create(&key) { raw in
            guard let raw else { return }
            Unmanaged<AnyObject>.fromOpaque(raw).release()
        }
        precondition(status == 0, "pthread_key_create failed with \(status)")
        self.key = key
    }

    /// The calling thread's value.
    var value: Value? {
        get {
            guard let raw = pthread_getspecific(key) else { return nil }
            return Unmanaged<Value>.fromOpaque(raw).takeUnretainedValue()
        }
        set {
            if let old = pthread_getspecific(key) {
                Unmanaged<Value>.fromOpaque(old).release()
            }
            if let newValue {
                pthread_setspecific(key, Unmanaged.passRetained(newValue).toOpaque())
            } else {
                pthread_setspecific(key, nil)
            }
        }
    }

    /// Runs `body` with `value` set on this thread, then restores the previous value.
    func withValue<R>(_ value: Value, _ body: () throws -> R) rethrows -> R {
        let previous = self.value
        self.value = value
        defer { self.value = previous }
        return try body()
    }
}
