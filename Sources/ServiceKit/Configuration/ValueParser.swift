/// How an option's text (from a flag or an environment variable) becomes a typed value, and how a
/// value is shown back in `--help`.
///
/// The built-in parsers cover what services need; ``init(expected:placeholder:parse:format:)``
/// makes others.
public struct ValueParser<Value: Sendable>: Sendable {
    /// What a valid value looks like, for error messages: "an integer from 1 to 65535".
    public let expected: String
    /// The placeholder shown in `--help` after the flag, for example `<n>`.
    public let placeholder: String
    /// True for a boolean switch: the bare flag means `true` and consumes no next argument.
    public let isSwitch: Bool
    private let parseText: @Sendable (String) -> Value?
    private let formatValue: @Sendable (Value) -> String

    /// Makes a parser from a parsing closure (nil means "not a valid value") and a formatter.
    public init(
        expected: String, placeholder: String,
        parse: @escaping @Sendable (String) -> Value?,
        format: @escaping @Sendable (Value) -> String
    ) {
        self.init(expected: expected, placeholder: placeholder, isSwitch: false, parse: parse, format: format)
    }

    private init(
        expected: String, placeholder: String, isSwitch: Bool,
        parse: @escaping @Sendable (String) -> Value?,
        format: @escaping @Sendable (Value) -> String
    ) {
        self.expected = expected
        self.placeholder = placeholder
        self.isSwitch = isSwitch
        self.parseText = parse
        self.formatValue = format
    }

    /// Parses `text`, or returns nil when it is not a valid value.
    public func parse(_ text: String) -> Value? { parseText(text) }

    /// Shows `value` the way a user would type it.
    public func format(_ value: Value) -> String { formatValue(value) }
}

extension ValueParser where Value == String {
    /// Any text, including the empty string.
    public static var string: ValueParser<String> {
        ValueParser(expected: "a string", placeholder: "<text>", parse: { $0 }, format: { $0 })
    }
}

extension ValueParser where Value == Double {
    /// A decimal fraction from 0 to 1 (`0`, `0.01`, `1`).
    public static var ratio: ValueParser<Double> {
        ValueParser(
            expected: "a number from 0 to 1", placeholder: "<ratio>",
            parse: { text in Double(text).flatMap { (0...1).contains($0) ? $0 : nil } },
            format: { String($0) })
    }
}

extension ValueParser where Value == Int {
    /// A decimal integer within `range`.
    public static func integer(in range: ClosedRange<Int>) -> ValueParser<Int> {
        ValueParser(
            expected: "an integer from \(range.lowerBound) to \(range.upperBound)", placeholder: "<n>",
            parse: { text in Int(text).flatMap { range.contains($0) ? $0 : nil } },
            format: { String($0) })
    }

    /// A byte size: plain bytes (`4096`) or a binary multiple (`64KiB`, `19MiB`, `2GiB`).
    public static var byteSize: ValueParser<Int> {
        ValueParser(
            expected: "a byte size such as 4096, 64KiB, 19MiB or 1GiB", placeholder: "<size>",
            parse: ByteSizeText.parse, format: ByteSizeText.format)
    }
}

extension ValueParser where Value == Bool {
    /// A boolean switch: `--flag` alone is true; `--flag=false` and environment values take
    /// `true|false|yes|no|on|off|1|0`.
    public static var boolean: ValueParser<Bool> {
        ValueParser(
            expected: "true or false (also yes/no, on/off, 1/0)", placeholder: "", isSwitch: true,
            parse: { text in
                switch text.lowercased() {
                case "true", "yes", "on", "1": true
                case "false", "no", "off", "0": false
                default: nil
                }
            },
            format: { $0 ? "true" : "false" })
    }
}

extension ValueParser where Value == Duration {
    /// A duration: a whole number with a unit, `ms`, `s`, `m` or `h` (`250ms`, `5s`, `2m`, `24h`).
    public static var duration: ValueParser<Duration> {
        ValueParser(
            expected: "a duration such as 250ms, 5s, 2m or 24h", placeholder: "<duration>",
            parse: DurationText.parse, format: DurationText.format)
    }
}

extension ValueParser where Value == Endpoint {
    /// A ZeroMQ endpoint: `tcp://host:port`, `ipc://path` or `inproc://name`.
    public static var endpoint: ValueParser<Endpoint> {
        ValueParser(
            expected: "an endpoint tcp://host:port, ipc://path or inproc://name", placeholder: "<endpoint>",
            parse: { Endpoint($0) }, format: { $0.description })
    }
}

extension ValueParser where Value == [Endpoint] {
    /// One or more ZeroMQ endpoints separated by commas (`tcp://10.0.0.1:5562,tcp://10.0.0.2:5562`):
    /// the replicas of one service, which a client spreads its calls over.
    public static var endpoints: ValueParser<[Endpoint]> {
        ValueParser(
            expected:
                "one or more endpoints tcp://host:port, ipc://path or inproc://name, separated by commas",
            placeholder: "<endpoint>[,<endpoint>...]",
            parse: { text in
                let parts = text.split(separator: ",", omittingEmptySubsequences: false)
                let endpoints = parts.compactMap { Endpoint(String($0)) }
                return endpoints.count == parts.count && !endpoints.isEmpty ? endpoints : nil
            },
            format: { $0.map(\.description).joined(separator: ",") })
    }
}

extension ValueParser {
    /// One of the cases of a string-backed enumeration, written as its raw value.
    public static func choice(_ type: Value.Type = Value.self) -> ValueParser<Value>
    where Value: CaseIterable & RawRepresentable, Value.RawValue == String {
        let names = Value.allCases.map(\.rawValue)
        return ValueParser(
            expected: "one of \(names.joined(separator: ", "))",
            placeholder: "<\(names.joined(separator: "|"))>",
            parse: { Value(rawValue: $0) }, format: { $0.rawValue })
    }

    /// The same values as `parser`, or none: the default is typically `nil`, shown as `none`.
    public static func optional<Wrapped>(_ parser: ValueParser<Wrapped>) -> ValueParser<Wrapped?>
    where Value == Wrapped? {
        ValueParser(
            expected: parser.expected, placeholder: parser.placeholder,
            parse: { text in parser.parse(text).map { .some($0) } },
            format: { $0.map(parser.format) ?? "none" })
    }
}

/// Parsing and formatting of durations (`250ms`, `5s`, `2m`, `24h`).
enum DurationText {
    private static let units: [(suffix: String, milliseconds: Int64)] = [
        ("ms", 1), ("s", 1_000), ("m", 60_000), ("h", 3_600_000),
    ]

    static func parse(_ text: String) -> Duration? {
        // "ms" before "m" and "s": try the longest suffix first.
        for (suffix, scale) in units.sorted(by: { $0.suffix.count > $1.suffix.count })
        where text.hasSuffix(suffix) {
            let digits = text.dropLast(suffix.count)
            guard !digits.isEmpty, digits.allSatisfy(\.isASCII), let count = Int64(digits), count >= 0
            else { return nil }
            let (milliseconds, overflow) = count.multipliedReportingOverflow(by: scale)
            return overflow ? nil : .milliseconds(milliseconds)
        }
        return nil
    }

    static func format(_ duration: Duration) -> String {
        let milliseconds =
            duration.components.seconds * 1_000
            + duration.components.attoseconds / 1_000_000_000_000_000
        for (suffix, scale) in units.reversed() where milliseconds % scale == 0 && milliseconds != 0 {
            return "\(milliseconds / scale)\(suffix)"
        }
        return "\(milliseconds)ms"
    }
}

/// Parsing and formatting of byte sizes (`4096`, `64KiB`, `19MiB`, `1GiB`).
enum ByteSizeText {
    private static let units: [(suffix: String, bytes: Int)] = [
        ("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10), ("B", 1),
    ]

    static func parse(_ text: String) -> Int? {
        let unit = units.first { text.hasSuffix($0.suffix) } ?? ("", 1)
        let digits = text.dropLast(unit.suffix.count)
        guard !digits.isEmpty, digits.allSatisfy(\.isASCII), let count = Int(digits), count >= 0 else {
            return nil
        }
        let (bytes, overflow) = count.multipliedReportingOverflow(by: unit.bytes)
        return overflow ? nil : bytes
    }

    static func format(_ bytes: Int) -> String {
        for (suffix, scale) in units where scale > 1 && bytes != 0 && bytes % scale == 0 {
            return "\(bytes / scale)\(suffix)"
        }
        return String(bytes)
    }
}
