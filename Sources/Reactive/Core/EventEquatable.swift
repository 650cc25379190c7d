extension Event: Equatable where Element: Equatable {
    /// Events are equal when they are the same case with equal elements; errors are equal when
    /// they have the same type and are equal (`Equatable` errors) or print the same.
    public static func == (lhs: Event<Element>, rhs: Event<Element>) -> Bool {
        switch (lhs, rhs) {
        case (.next(let left), .next(let right)): return left == right
        case (.completed, .completed): return true
        case (.error(let left), .error(let right)): return errorsEqual(left, right)
        default: return false
        }
    }
}

/// Compares two errors: same dynamic type, then `==` when the type is `Equatable`, else their
/// debug descriptions.
func errorsEqual(_ left: any Error, _ right: any Error) -> Bool {
    guard type(of: left) == type(of: right) else { return false }
    if let left = (left as Any) as? any Equatable {
        return left.isEqual(to: right)
    }
    return String(reflecting: left) == String(reflecting: right)
}

extension Equatable {
    fileprivate func isEqual(to other: Any) -> Bool {
        guard let other = other as? Self else { return false }
        return self == other
    }
}
