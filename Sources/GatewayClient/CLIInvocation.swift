public import Contracts
import GatewayMessages

/// Bad usage of `gateway-cli`: what is wrong, for standard error, and the subcommand whose help
/// to point at. Exit code 64.
public struct CLIUsageError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What is wrong, e.g. `unknown option --phon for login`.
    public var message: String
    /// The subcommand being parsed, if any.
    public var subcommand: String?

    /// A usage error.
    public init(_ message: String, subcommand: String? = nil) {
        self.message = message
        self.subcommand = subcommand
    }

    /// The message and where to find help.
    public var description: String {
        "gateway-cli: \(message)\nsee: gateway-cli \(subcommand.map { "\($0) " } ?? "")--help"
    }
}

/// A parsed `gateway-cli` command line (docs/gateway/cli.md): the global options and the
/// subcommand with its own.
public struct CLIInvocation: Sendable, Hashable {
    /// What to run.
    public enum Command: Sendable, Hashable {
        /// No subcommand: the interactive terminal client.
        case interactive
        /// `--help`, for a subcommand or (nil) the program.
        case help(String?)
        /// `--version`.
        case version
        /// `login --phone P --password-stdin`.
        case login(phone: String)
        /// `register --username U --password-stdin`.
        case register(username: String)
        /// `signin --username U --password-stdin`.
        case signin(username: String)
        /// `heroes [--query Q] [--page N] --token T`.
        case heroes(query: String, page: Int?, token: String)
        /// `numbers A B C`.
        case numbers(String, String, String)

        /// The prompts for the passwords the subcommand reads (from a terminal), in `locale`:
        /// `Password: ` (and `Repeat password: ` for register).
        public func passwordPrompts(in locale: MessageLocale) -> [String] {
            let labels: [MessageCode]
            switch self {
            case .login, .signin: labels = ["ui.password"]
            case .register: labels = ["ui.password", "ui.repeatPassword"]
            default: labels = []
            }
            return labels.map { MessageCatalogue.standard.render($0, in: locale) + ": " }
        }

        /// Whether the subcommand reads a password from standard input.
        public var needsPassword: Bool {
            switch self {
            case .login, .register, .signin: true
            default: false
            }
        }
    }

    /// The gateway's endpoint where nothing else says.
    public static let defaultEndpoint = "tcp://127.0.0.1:5560"
    /// The script timeout where nothing else says.
    public static let defaultTimeout = Duration.seconds(10)
    /// The subcommands, in the order help lists them.
    public static let subcommands = ["login", "register", "signin", "heroes", "numbers"]
    /// The program's version.
    public static let version = ProjectVersion.current

    /// What to run.
    public var command: Command
    /// `--endpoint`, `GATEWAY_CLI_ENDPOINT`.
    public var endpoint: String
    /// `--server-key` (a key file's path or a 40-character Z85 key), `GATEWAY_CLI_SERVER_KEY`; nil
    /// for the gateway's default `curve.pub`.
    public var serverKey: String?
    /// `--curve on|off`, `GATEWAY_CLI_CURVE` (default on).
    public var curve: Bool
    /// `--lang`, `GATEWAY_CLI_LANG`, else from the locale environment (``locale(fromEnvironment:)``).
    public var locale: MessageLocale
    /// `--json`: output events as JSON lines.
    public var json: Bool
    /// `--trace`: every input asks the gateway for its trace (a fresh sampled `traceparent`); the
    /// traces are printed (scripts) or shown on Ctrl-T (interactive).
    public var trace: Bool
    /// `--timeout SECONDS`, `GATEWAY_CLI_TIMEOUT` (default 10).
    public var timeout: Duration

    /// Parses `arguments` (without the program name). Options may come before or after the
    /// subcommand, as `--name value` or `--name=value`; `--` ends the options.
    public static func parse(_ arguments: [String], environment: [String: String]) throws(CLIUsageError)
        -> CLIInvocation
    {
        var parser = Parser(arguments: arguments)
        return try parser.run(environment: environment)
    }

    /// The message locale a shell's environment asks for: `LC_ALL`, `LC_MESSAGES`, then `LANG`
    /// (the first one set and not empty); `zh_TW`, `zh_HK`, `zh_MO` or a `Hant` script is
    /// `zh-Hant`, any other `zh` is `zh-Hans`, everything else (and `C`/`POSIX`) is `en`.
    public static func locale(fromEnvironment environment: [String: String]) -> MessageLocale {
        let setting =
            ["LC_ALL", "LC_MESSAGES", "LANG"].lazy.compactMap { environment[$0] }.first { !$0.isEmpty } ?? ""
        let lowered = setting.lowercased()
        guard lowered.hasPrefix("zh") else { return .en }
        let traditional = ["zh_tw", "zh-tw", "zh_hk", "zh-hk", "zh_mo", "zh-mo"]
        if traditional.contains(where: { lowered.hasPrefix($0) }) || lowered.contains("hant") {
            return .zhHant
        }
        return .zhHans
    }

    /// Reads a `--lang` value: `zh-Hans`, `zh-Hant` or `en` (case and `_`/`-` ignored).
    static func parseLocale(_ text: String) -> MessageLocale? {
        let normalized = String(text.lowercased().map { $0 == "_" ? "-" : $0 })
        return MessageLocale.allCases.first { $0.rawValue.lowercased() == normalized }
    }

    /// Reads a `--timeout` value: a positive number of seconds, at most a day (`10`, `0.5`).
    static func parseTimeout(_ text: String) -> Duration? {
        guard let seconds = Double(text), seconds.isFinite, seconds > 0, seconds <= 86_400 else { return nil }
        return .milliseconds(max(1, Int((seconds * 1000).rounded())))
    }
}

/// The command line, read left to right.
private struct Parser {
    var arguments: [String]
    var index = 0
    var subcommand: String?
    /// Option values by name (without `--`); flags hold `""`.
    var options: [String: String] = [:]
    var positional: [String] = []

    init(arguments: [String]) { self.arguments = arguments }

    /// Options that take a value, by subcommand (nil: global).
    static let valued: [String?: Set<String>] = [
        nil: ["endpoint", "server-key", "curve", "lang", "timeout"],
        "login": ["phone"], "register": ["username"], "signin": ["username"],
        "heroes": ["query", "page", "token"], "numbers": [],
    ]
    /// Flags (no value), by subcommand (nil: global).
    static let flags: [String?: Set<String>] = [
        nil: ["json", "trace", "help", "version"],
        "login": ["password-stdin"], "register": ["password-stdin"], "signin": ["password-stdin"],
        "heroes": [], "numbers": [],
    ]

    func error(_ message: String) -> CLIUsageError { CLIUsageError(message, subcommand: subcommand) }

    mutating func run(environment: [String: String]) throws(CLIUsageError) -> CLIInvocation {
        var optionsEnded = false
        while index < arguments.count {
            let argument = arguments[index]
            index += 1
            if !optionsEnded, argument == "--" {
                optionsEnded = true
            } else if !optionsEnded, argument.hasPrefix("--") {
                try option(String(argument.dropFirst(2)))
            } else if !optionsEnded, argument == "-h" {
                options["help"] = ""
            } else if !optionsEnded, argument.hasPrefix("-"), argument.count > 1, subcommand != "numbers" {
                throw error("unknown option \(argument)")
            } else if subcommand == nil {
                guard CLIInvocation.subcommands.contains(argument) || argument == "help" else {
                    throw error(
                        "unknown subcommand \(argument) (one of: \(CLIInvocation.subcommands.joined(separator: ", ")))"
                    )
                }
                if argument == "help" {
                    options["help"] = ""
                    if index < arguments.count, CLIInvocation.subcommands.contains(arguments[index]) {
                        subcommand = arguments[index]
                        index += 1
                    }
                } else {
                    subcommand = argument
                }
            } else {
                positional.append(argument)
            }
        }
        if options["help"] != nil {
            return try invocation(.help(subcommand), environment: environment)
        }
        if options["version"] != nil { return try invocation(.version, environment: environment) }
        return try invocation(try command(environment: environment), environment: environment)
    }

    /// Reads `--name` or `--name=value`.
    mutating func option(_ text: String) throws(CLIUsageError) {
        let parts = text.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
        let name = String(parts[0])
        let inline = parts.count == 2 ? String(parts[1]) : nil
        if name == "password" || name.hasPrefix("password") && name != "password-stdin" {
            throw error("passwords are never taken from the command line: use --password-stdin")
        }
        let valued = Self.valued[nil, default: []].union(
            subcommand.map { Self.valued[$0, default: []] } ?? [])
        let flags = Self.flags[nil, default: []].union(subcommand.map { Self.flags[$0, default: []] } ?? [])
        if flags.contains(name) {
            guard inline == nil else { throw error("--\(name) takes no value") }
            options[name] = ""
        } else if valued.contains(name) {
            if let inline {
                options[name] = inline
            } else {
                guard index < arguments.count else { throw error("--\(name) needs a value") }
                options[name] = arguments[index]
                index += 1
            }
        } else {
            throw error("unknown option --\(name)\(subcommand.map { " for \($0)" } ?? "")")
        }
    }

    /// A required, non-empty option value.
    func required(_ name: String) throws(CLIUsageError) -> String {
        guard let value = options[name] else { throw error("missing --\(name)") }
        guard !value.isEmpty else { throw error("--\(name) is empty") }
        return value
    }

    func command(environment: [String: String]) throws(CLIUsageError) -> CLIInvocation.Command {
        guard let subcommand else {
            if !positional.isEmpty { throw error("unexpected argument \(positional[0])") }
            return .interactive
        }
        if subcommand != "numbers", let extra = positional.first {
            throw error("unexpected argument \(extra)")
        }
        let command: CLIInvocation.Command
        switch subcommand {
        case "login": command = .login(phone: try required("phone"))
        case "register": command = .register(username: try required("username"))
        case "signin": command = .signin(username: try required("username"))
        case "heroes":
            let token = options["token"] ?? environment["GATEWAY_CLI_TOKEN"] ?? ""
            guard !token.isEmpty else { throw error("missing --token (or GATEWAY_CLI_TOKEN)") }
            var page: Int?
            if let text = options["page"] {
                guard let number = Int(text), number >= 1 else {
                    throw error("--page needs a page number from 1, not \(text)")
                }
                page = number
            }
            command = .heroes(query: options["query"] ?? "", page: page, token: token)
        default:
            guard positional.count == 3 else {
                throw error("numbers needs three numbers, got \(positional.count)")
            }
            command = .numbers(positional[0], positional[1], positional[2])
        }
        if command.needsPassword, options["password-stdin"] == nil {
            throw error(
                "\(subcommand) needs --password-stdin (passwords are never taken from the command line)")
        }
        return command
    }

    func invocation(_ command: CLIInvocation.Command, environment: [String: String]) throws(CLIUsageError)
        -> CLIInvocation
    {
        func setting(_ name: String, _ variable: String) -> String? {
            options[name] ?? environment[variable].flatMap { $0.isEmpty ? nil : $0 }
        }
        let endpoint = setting("endpoint", "GATEWAY_CLI_ENDPOINT") ?? CLIInvocation.defaultEndpoint
        guard !endpoint.isEmpty else { throw error("--endpoint is empty") }
        var curve = true
        if let text = setting("curve", "GATEWAY_CLI_CURVE") {
            switch text.lowercased() {
            case "on": curve = true
            case "off": curve = false
            default: throw error("--curve is on or off, not \(text)")
            }
        }
        var locale = CLIInvocation.locale(fromEnvironment: environment)
        if let text = setting("lang", "GATEWAY_CLI_LANG") {
            guard let chosen = CLIInvocation.parseLocale(text) else {
                throw error("--lang is zh-Hans, zh-Hant or en, not \(text)")
            }
            locale = chosen
        }
        var timeout = CLIInvocation.defaultTimeout
        if let text = setting("timeout", "GATEWAY_CLI_TIMEOUT") {
            guard let chosen = CLIInvocation.parseTimeout(text) else {
                throw error("--timeout is a number of seconds above 0 and at most 86400, not \(text)")
            }
            timeout = chosen
        }
        return CLIInvocation(
            command: command, endpoint: endpoint, serverKey: setting("server-key", "GATEWAY_CLI_SERVER_KEY"),
            curve: curve, locale: locale, json: options["json"] != nil, trace: options["trace"] != nil,
            timeout: timeout)
    }
}
