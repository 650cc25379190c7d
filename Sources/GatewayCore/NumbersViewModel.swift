public import Contracts
public import Reactive

/// The numbers flow (docs/ARCHITECTURE.md §2.5), the demos' "add three numbers" screen: three texts in, their
/// sum out. No backend: the gateway alone.
///
/// - Each text is read as a decimal integer (an optional sign, ASCII digits; surrounding spaces are
///   ignored). Unreadable text, including an empty field, counts as 0.
/// - A number that does not fit in `Int`, or a sum that does not, is ``Sum/overflow``: reported,
///   never a crash.
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

    /// The sum, or why there is none.
    public enum Sum: Sendable, Hashable, CustomStringConvertible {
        /// The sum.
        case value(Int)
        /// A number or the sum is out of `Int`'s range.
        case overflow

        /// `numbers.overflow` for ``overflow``; nil for a value (the screen shows the number).
        public var message: ScreenMessage? {
            switch self {
            case .value: nil
            case .overflow: ScreenMessage(NumbersViewModel.overflow)
            }
        }

        /// The number, or `numbers.overflow`.
        public var description: String {
            switch self {
            case .value(let value): String(value)
            case .overflow: NumbersViewModel.overflow.rawValue
            }
        }
    }

    /// `numbers.overflow`: the numbers or their sum are too large.
    public static let overflow: MessageCode = .numbersOverflow

    /// A view model. Its outputs deliver where ``SharingScheduler/make()`` says when they are built
    /// (the gateway builds them on its actor; tests inside `SharingScheduler.mock(scheduler:)`).
    public init() {}

    /// Builds the outputs for `input`.
    public func transform(_ input: Input) -> Output {
        let sum = Observable.combineLatest(
            input.a.startWith(""), input.b.startWith(""), input.c.startWith("")
        ) { a, b, c in
            Self.sum([a, b, c])
        }
        .distinctUntilChanged()
        .asDriver(onErrorJustReturn: .value(0))
        return Output(sum: sum)
    }

    /// The sum of `texts`, each read with ``parse(_:)``.
    public static func sum(_ texts: [String]) -> Sum {
        var total = 0
        for text in texts {
            guard case .value(let value) = parse(text) else { return .overflow }
            let (next, overflowed) = total.addingReportingOverflow(value)
            if overflowed { return .overflow }
            total = next
        }
        return .value(total)
    }

    /// `text` as an integer: 0 when unreadable, ``Sum/overflow`` when it is a well-formed integer
    /// out of `Int`'s range.
    public static func parse(_ text: String) -> Sum {
        let trimmed = text.drop { $0 == " " || $0 == "\t" }.reversed().drop { $0 == " " || $0 == "\t" }
        let digits = String(trimmed.reversed())
        if let value = Int(digits) { return .value(value) }
        let unsigned = digits.first == "-" || digits.first == "+" ? digits.dropFirst() : Substring(digits)
        let wellFormed = !unsigned.isEmpty && unsigned.allSatisfy { $0.isASCII && $0.isNumber }
        return wellFormed ? .overflow : .value(0)
    }
}
