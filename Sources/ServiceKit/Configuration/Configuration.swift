/// The typed values of a parsed command line, read back by option.
public struct Configuration: Sendable {
    private let values: [String: (value: any Sendable, source: ValueSource)]

    init(values: [String: (value: any Sendable, source: ValueSource)]) { self.values = values }

    /// The value of `option`. The option must be one the interface declared (a programming error
    /// otherwise, which traps).
    public subscript<Value>(_ option: Option<Value>) -> Value {
        guard let entry = values[option.name], let value = entry.value as? Value else {
            preconditionFailure("option --\(option.name) was not declared to the command-line interface")
        }
        return value
    }

    /// Where the value of `option` came from: its flag, its variable or its default.
    public func source<Value>(of option: Option<Value>) -> ValueSource {
        values[option.name]?.source ?? .defaultValue
    }
}

/// What parsing a command line asks for: run with a configuration, or print help or the version.
public enum ParseOutcome: Sendable {
    /// Run the service with these values.
    case run(Configuration)
    /// `--help` (or `-h`) was given: print this usage text.
    case help(String)
    /// `--version` was given: print this line.
    case version(String)
}

/// What an executable should do after parsing: run, or write output and exit with a code.
public enum CommandLineResolution: Sendable {
    /// Run the service with these values.
    case run(Configuration)
    /// Write `standardOutput` and `standardError` (either may be empty) and exit with `code`:
    /// 0 for help and version, 64 (`EX_USAGE`) for usage errors.
    case exit(code: Int32, standardOutput: String, standardError: String)
}

/// An executable's command line: its name, version, summary and options, parsed from an injected
/// argument list and environment (so parsing is pure and testable).
///
/// Precedence: flag, then environment variable, then default. Flags are `--name value` or
/// `--name=value`; a boolean switch is `--name` (or `--name=false`). An empty environment variable
/// counts as unset. `--help`/`-h` and `--version` win over everything else.
public struct CommandLineInterface: Sendable {
    /// The exit code of a usage error (`EX_USAGE` from sysexits.h).
    public static let usageErrorExitCode: Int32 = 64

    /// The executable's name, as shown in the usage line.
    public let executable: String
    /// The version printed by `--version`.
    public let version: String
    /// One or two sentences printed at the top of `--help`.
    public let summary: String
    /// The declared options, in `--help` order.
    public let options: [OptionDeclaration]

    /// Declares an executable's command line. Option names must be unique and must not be `help`
    /// or `version` (a programming error, which traps).
    public init(executable: String, version: String, summary: String, options: [any AnyOption]) {
        self.executable = executable
        self.version = version
        self.summary = summary
        self.options = options.map(\.declaration)
        let names = self.options.map(\.name) + ["help", "version"]
        precondition(Set(names).count == names.count, "option names must be unique: \(names)")
    }

    /// Parses `arguments` (without the executable's own path) and `environment`.
    public func parse(arguments: [String], environment: [String: String]) throws(ConfigurationError)
        -> ParseOutcome
    {
        if arguments.contains("--help") || arguments.contains("-h") { return .help(helpText) }
        if arguments.contains("--version") { return .version("\(executable) \(version)") }
        var values: [String: (value: any Sendable, source: ValueSource)] = [:]
        var index = arguments.startIndex
        while index < arguments.endIndex {
            let argument = arguments[index]
            index += 1
            guard argument.hasPrefix("--"), argument.count > 2 else {
                let name = String(argument.drop { $0 == "-" }.prefix { $0 != "=" })
                if argument.hasPrefix("-"), !name.isEmpty {
                    throw .unknownFlag(argument, suggestion: suggestion(for: name))
                }
                throw .unexpectedArgument(argument)
            }
            let body = argument.dropFirst(2)
            let name = String(body.prefix { $0 != "=" })
            let inline = body.firstIndex(of: "=").map { String(body[body.index(after: $0)...]) }
            let flag = "--\(name)"
            guard let option = options.first(where: { $0.name == name }) else {
                throw .unknownFlag(flag, suggestion: suggestion(for: name))
            }
            guard values[name] == nil else { throw .repeatedFlag(flag) }
            let text: String
            if let inline {
                text = inline
            } else if option.isSwitch {
                text = "true"
            } else if index < arguments.endIndex, !arguments[index].hasPrefix("--") {
                text = arguments[index]
                index += 1
            } else {
                throw .missingValue(flag: flag, expected: option.expected)
            }
            values[name] = (try parse(text, for: option, from: .flag(flag)), .flag(flag))
        }
        for option in options where values[option.name] == nil {
            if let variable = option.environmentVariable, let text = environment[variable], !text.isEmpty {
                let source = ValueSource.environment(variable)
                values[option.name] = (try parse(text, for: option, from: source), source)
            } else {
                values[option.name] = (option.defaultValue, .defaultValue)
            }
        }
        return .run(Configuration(values: values))
    }

    /// Parses and turns help, version and usage errors into output and an exit code.
    public func resolve(arguments: [String], environment: [String: String]) -> CommandLineResolution {
        do {
            switch try parse(arguments: arguments, environment: environment) {
            case .run(let configuration): return .run(configuration)
            case .help(let text): return .exit(code: 0, standardOutput: text, standardError: "")
            case .version(let line): return .exit(code: 0, standardOutput: line + "\n", standardError: "")
            }
        } catch {
            return .exit(
                code: Self.usageErrorExitCode, standardOutput: "",
                standardError: "\(executable): \(error)\n")
        }
    }

    /// The usage text: the summary, then every option with its placeholder, help, default and
    /// environment variable.
    public var helpText: String {
        var lines = ["Usage: \(executable) [options]", "", summary, "", "Options:"]
        for option in options {
            let placeholder = option.placeholder.isEmpty ? "" : " \(option.placeholder)"
            lines.append("  \(option.flag)\(placeholder)")
            lines.append("      \(option.help)")
            var facts = ["default: \(option.defaultText)"]
            if let variable = option.environmentVariable { facts.append("env: \(variable)") }
            lines.append("      (\(facts.joined(separator: "; ")))")
        }
        lines.append("  --help")
        lines.append("      Print this help and exit.")
        lines.append("  --version")
        lines.append("      Print the version and exit.")
        return lines.joined(separator: "\n") + "\n"
    }

    private func parse(_ text: String, for option: OptionDeclaration, from source: ValueSource)
        throws(ConfigurationError) -> any Sendable
    {
        guard let value = option.parse(text) else {
            throw .badValue(source: source, value: text, expected: option.expected)
        }
        return value
    }

    /// The known flag nearest to `name` by edit distance, when it is close enough to be a typo.
    private func suggestion(for name: String) -> String? {
        let candidates = options.map(\.name) + ["help", "version"]
        let scored = candidates.map { (name: $0, distance: editDistance(name, $0)) }
        guard let best = scored.min(by: { $0.distance < $1.distance }),
            best.distance <= max(2, name.count / 3)
        else { return nil }
        return "--\(best.name)"
    }
}

/// The Levenshtein distance between two strings, by characters.
func editDistance(_ lhs: String, _ rhs: String) -> Int {
    let left = Array(lhs)
    let right = Array(rhs)
    var previous = Array(0...right.count)
    for (i, leftCharacter) in left.enumerated() {
        var current = [i + 1]
        for (j, rightCharacter) in right.enumerated() {
            let substitution = previous[j] + (leftCharacter == rightCharacter ? 0 : 1)
            current.append(min(substitution, previous[j + 1] + 1, current[j] + 1))
        }
        previous = current
    }
    return previous[right.count]
}
