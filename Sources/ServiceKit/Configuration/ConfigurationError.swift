/// Where an option's value came from.
public enum ValueSource: Sendable, Hashable, CustomStringConvertible {
    /// A command-line flag, as written (`--port`).
    case flag(String)
    /// An environment variable, by name.
    case environment(String)
    /// The option's default.
    case defaultValue

    /// `--port`, `environment variable AUTH_PORT` or `default`.
    public var description: String {
        switch self {
        case .flag(let flag): flag
        case .environment(let name): "environment variable \(name)"
        case .defaultValue: "default"
        }
    }
}

/// A usage error in the command line or the environment, with a message a person can act on.
///
/// A small closed set, so an enum; ``description`` is the message for stderr.
public enum ConfigurationError: Error, Sendable, Hashable, CustomStringConvertible {
    /// A flag no option declares, with the nearest known flag when one is close.
    case unknownFlag(String, suggestion: String?)
    /// A flag that needs a value came last or was followed by another flag.
    case missingValue(flag: String, expected: String)
    /// A value that does not parse, with where it came from and what was expected.
    case badValue(source: ValueSource, value: String, expected: String)
    /// The same flag was given twice.
    case repeatedFlag(String)
    /// An argument that is not a flag (services take no positional arguments).
    case unexpectedArgument(String)

    /// The message for a person, ending with a pointer to `--help`.
    public var description: String {
        let text =
            switch self {
            case .unknownFlag(let flag, let suggestion?):
                "unknown option '\(flag)'; did you mean '\(suggestion)'?"
            case .unknownFlag(let flag, nil):
                "unknown option '\(flag)'"
            case .missingValue(let flag, let expected):
                "option '\(flag)' needs a value: \(expected)"
            case .badValue(let source, let value, let expected):
                "invalid value '\(value)' for \(source): expected \(expected)"
            case .repeatedFlag(let flag):
                "option '\(flag)' is given more than once"
            case .unexpectedArgument(let argument):
                "unexpected argument '\(argument)' (options are written --name value or --name=value)"
            }
        return text + " (see --help)"
    }
}
