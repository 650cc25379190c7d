public import Reactive

/// Virtual time in the test scheduler: integer ticks.
public typealias TestTime = Int

/// A value recorded at a virtual time: `Recorded(time: 210, value: .next(1))`, written in tests as
/// `.next(210, 1)`, `.completed(300)`, `.error(400, error)`.
public struct Recorded<Value> {
    /// When the value was recorded.
    public let time: TestTime
    /// What was recorded.
    public let value: Value

    public init(time: TestTime, value: Value) {
        self.time = time
        self.value = value
    }
}

extension Recorded: Sendable where Value: Sendable {}
extension Recorded: Equatable where Value: Equatable {}

extension Recorded: CustomDebugStringConvertible {
    public var debugDescription: String { "\(value) @ \(time)" }
}

extension Recorded {
    /// A `.next(element)` event at `time`.
    public static func next<T>(_ time: TestTime, _ element: T) -> Recorded<Event<T>>
    where Value == Event<T> {
        Recorded(time: time, value: .next(element))
    }

    /// A `.completed` event at `time`.
    public static func completed<T>(_ time: TestTime, _ type: T.Type = T.self)
        -> Recorded<Event<T>>
    where Value == Event<T> {
        Recorded(time: time, value: .completed)
    }

    /// An `.error(error)` event at `time`.
    public static func error<T>(_ time: TestTime, _ error: any Error, _ type: T.Type = T.self)
        -> Recorded<Event<T>>
    where Value == Event<T> {
        Recorded(time: time, value: .error(error))
    }
}

/// When a test observable was subscribed and disposed: `Subscription(200, 300)`, or
/// `Subscription(200)` for a subscription still open at the end of the test.
public struct Subscription: Hashable, Sendable, CustomDebugStringConvertible {
    /// When the subscription started.
    public let subscribe: TestTime
    /// When it was disposed; `Int.max` if it never was.
    public let unsubscribe: TestTime

    /// A subscription that was never disposed.
    public init(_ subscribe: TestTime) {
        self.init(subscribe, .max)
    }

    /// A subscription from `subscribe` to `unsubscribe`.
    public init(_ subscribe: TestTime, _ unsubscribe: TestTime) {
        self.subscribe = subscribe
        self.unsubscribe = unsubscribe
    }

    public var debugDescription: String {
        unsubscribe == .max ? "(\(subscribe) : +∞)" : "(\(subscribe) : \(unsubscribe))"
    }
}
