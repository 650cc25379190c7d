public import Contracts
public import GatewayMessages
public import Reactive

/// The numbers flow (docs/ARCHITECTURE.md §2.5), the demos' "add three numbers" screen: three texts in, their
/// sum out. No backend: the gateway alone.
///
/// - Each text is read as ``NumbersSum`` says: unreadable text, including an empty field, counts
///   as 0; a number or a sum out of `Int`'s range is ``NumbersSum/overflow``, reported, never a crash.
/// - A field nobody has typed in counts as empty, so the sum is 0 from the start.
public struct NumbersViewModel: Sendable {
    /// What the screen feeds in: each field's whole text after every keystroke.
    public struct Input: Sendable {
        /// The first field.
        public var a: Observable<String>
        /// The second field.
        public var b: Observable<String>
        /// The third field.
        public var c: Observable<String>

        /// Inputs from the three fields.
        public init(a: Observable<String>, b: Observable<String>, c: Observable<String>) {
            self.a = a
            self.b = b
            self.c = c
        }
    }

    /// What the screen binds to.
    public struct Output: Sendable {
        /// The sum of the three fields.
        public let sum: Driver<Sum>
    }

    /// The sum, or why there is none (the rule is `flow.numbers`' contract).
    public typealias Sum = NumbersSum

    /// A view model. Its outputs deliver where ``SharingScheduler/make()`` says when they are built
    /// (the gateway and tests build them inside `SharingScheduler.mock(scheduler:)`).
    public init() {}

    /// Builds the outputs for `input`.
    public func transform(_ input: Input) -> Output {
        let sum = Observable.combineLatest(
            input.a.startWith(""), input.b.startWith(""), input.c.startWith("")
        ) { a, b, c in
            NumbersSum.of([a, b, c])
        }
        .distinctUntilChanged()
        .asDriver(onErrorJustReturn: .value(0))
        return Output(sum: sum)
    }
}

extension NumbersSum {
    /// `numbers.overflow` for ``overflow``; nil for a value (the screen shows the number).
    public var message: ScreenMessage? {
        switch self {
        case .value: nil
        case .overflow: ScreenMessage(NumbersSum.overflowCode)
        }
    }
}
