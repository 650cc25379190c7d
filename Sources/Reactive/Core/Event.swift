/// One thing an observable sequence can say to its observer.
///
/// Sequences follow the grammar `next* (error | completed)?`: any number of elements, then at most
/// one terminal event, after which nothing more is delivered. Every operator in this module keeps
/// that grammar, the boundaries where foreign code produces events (`Observable.create`, subjects,
/// `subscribe(onNext:…)`) drop what comes after a terminal event, and debug builds report concurrent
/// or post-terminal delivery through ``GrammarCheck``.
@frozen
public enum Event<Element> {
    /// The next element of the sequence.
    case next(Element)
    /// The sequence failed; nothing follows.
    case error(any Error)
    /// The sequence finished; nothing follows.
    case completed
}

extension Event: Sendable where Element: Sendable {}

extension Event {
    /// Whether this is `.completed` or `.error`.
    @inlinable
    public var isStopEvent: Bool {
        if case .next = self { return false }
        return true
    }

    /// The element of a `.next` event.
    @inlinable
    public var element: Element? {
        if case .next(let value) = self { return value }
        return nil
    }

    /// The error of an `.error` event.
    @inlinable
    public var error: (any Error)? {
        if case .error(let error) = self { return error }
        return nil
    }

    /// Whether this is `.completed`.
    @inlinable
    public var isCompleted: Bool {
        if case .completed = self { return true }
        return false
    }

    /// Transforms the element of a `.next` event; a thrown error becomes an `.error` event.
    @inlinable
    public func map<Result>(_ transform: (Element) throws -> Result) -> Event<Result> {
        switch self {
        case .next(let element):
            do { return .next(try transform(element)) } catch { return .error(error) }
        case .error(let error): return .error(error)
        case .completed: return .completed
        }
    }
}

extension Event: CustomDebugStringConvertible {
    public var debugDescription: String {
        switch self {
        case .next(let value): return "next(\(value))"
        case .error(let error): return "error(\(error))"
        case .completed: return "completed"
        }
    }
}

/// Errors the module itself raises.
public enum RxError: Error, Equatable, Sendable, CustomStringConvertible {
    /// A `timeout` elapsed before the source produced an element or finished.
    case timeout
    /// A sequence expected to hold an element (for example a `Single`) finished empty.
    case noElements
    /// A sequence expected to hold one element (for example a `Single`) produced more.
    case moreThanOneElement
    /// An argument was outside its allowed range.
    case argumentOutOfRange
    /// An overflow occurred in an arithmetic operator.
    case overflow
    /// The object the operation needs was already disposed.
    case disposed

    public var description: String {
        switch self {
        case .timeout: return "Sequence timeout."
        case .noElements: return "Sequence doesn't contain any elements."
        case .moreThanOneElement: return "Sequence contains more than one element."
        case .argumentOutOfRange: return "Argument out of range."
        case .overflow: return "Arithmetic overflow."
        case .disposed: return "Object was already disposed."
        }
    }
}
