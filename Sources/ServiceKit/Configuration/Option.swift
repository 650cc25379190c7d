/// One declared option: a long flag, an optional environment variable, a default, a help text and
/// a typed parser.
///
/// Declare options once (typically as static constants) and read values back by the option itself,
/// so there is no stringly-typed lookup:
///
/// ```swift
/// enum AuthOptions {
///     static let endpoint = Option(
///         "endpoint", environment: "AUTH_ENDPOINT",
///         default: Endpoint(tcpHost: "127.0.0.1", port: 5555), parser: .endpoint,
///         help: "Where the service listens.")
/// }
/// let endpoint: Endpoint = configuration[AuthOptions.endpoint]
/// ```
public struct Option<Value: Sendable>: AnyOption {
    /// The flag's name without dashes: `endpoint` for `--endpoint`.
    public let name: String
    /// The environment variable read when the flag is absent, if any.
    public let environmentVariable: String?
    /// The value when neither the flag nor the variable is given.
    public let defaultValue: Value
    /// One line of help.
    public let help: String
    /// Parses and formats the option's values.
    public let parser: ValueParser<Value>
    /// Shown as the default in `--help` instead of the formatted ``defaultValue`` (for computed
    /// defaults such as the state directory).
    public let defaultDescription: String?

    /// Declares an option.
    public init(
        _ name: String, environment: String? = nil, default defaultValue: Value,
        parser: ValueParser<Value>, help: String, defaultDescription: String? = nil
    ) {
        self.name = name
        self.environmentVariable = environment
        self.defaultValue = defaultValue
        self.parser = parser
        self.help = help
        self.defaultDescription = defaultDescription
    }

    /// The type-erased description used by the command-line parser.
    public var declaration: OptionDeclaration {
        OptionDeclaration(
            name: name, environmentVariable: environmentVariable, help: help,
            placeholder: parser.placeholder, expected: parser.expected, isSwitch: parser.isSwitch,
            defaultText: defaultDescription ?? parser.format(defaultValue), defaultValue: defaultValue,
            parse: { [parser] in parser.parse($0) })
    }
}

/// Any ``Option``, whatever its value type: what a ``CommandLineInterface`` takes as its list.
public protocol AnyOption: Sendable {
    /// The option without its value type.
    var declaration: OptionDeclaration { get }
}

/// An option without its value type: what the parser and the help text need.
public struct OptionDeclaration: Sendable {
    /// The flag's name without dashes.
    public let name: String
    /// The environment variable, if any.
    public let environmentVariable: String?
    /// One line of help.
    public let help: String
    /// The placeholder after the flag in `--help` (empty for switches).
    public let placeholder: String
    /// What a valid value looks like.
    public let expected: String
    /// True for a boolean switch.
    public let isSwitch: Bool
    /// The default as shown in `--help`.
    public let defaultText: String
    let defaultValue: any Sendable
    let parse: @Sendable (String) -> (any Sendable)?

    /// The flag as typed: `--name`.
    public var flag: String { "--\(name)" }
}
