import Foundation

/// The command line of a subcommand (`merge`, `compare`, `stub`): `--help`, options that take a
/// value (`--json FILE`), and positional arguments, in any order.
struct SubcommandArguments {
    /// The positional arguments, in order.
    var positional: [String] = []
    /// Each option given, with its value, in order (an option may repeat).
    var values: [(option: String, value: String)] = []

    /// The last value of `option`, if given.
    func value(_ option: String) -> String? { values.last { $0.option == option }?.value }

    /// Every value of `option`, in order.
    func all(_ option: String) -> [String] { values.filter { $0.option == option }.map(\.value) }

    /// How reading a command line ended.
    enum Parsed {
        /// Run with these arguments.
        case run(SubcommandArguments)
        /// Exit with this code: 0 after printing the usage for `--help`, 64 after a one-line error.
        case exit(Int32)
    }

    /// Reads `arguments` for the subcommand `name`, whose options with a value are `options`;
    /// prints `usage` for `--help` and one line on standard error for a usage error.
    static func parse(_ arguments: [String], name: String, options: Set<String>, usage: String) -> Parsed {
        var parsed = SubcommandArguments()
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            index += 1
            if argument == "--help" || argument == "-h" {
                FileHandle.standardOutput.write(Data(usage.utf8))
                return .exit(0)
            }
            if options.contains(argument) {
                guard index < arguments.count else { return .exit(fail(name, "\(argument) needs a value")) }
                parsed.values.append((argument, arguments[index]))
                index += 1
            } else if argument.hasPrefix("-") {
                return .exit(fail(name, "unknown option \(argument) (see --help)"))
            } else {
                parsed.positional.append(argument)
            }
        }
        return .run(parsed)
    }

    /// Writes `auth-loadtest NAME: MESSAGE` on standard error and returns 64.
    static func fail(_ name: String, _ message: String) -> Int32 {
        FileHandle.standardError.write(Data("auth-loadtest \(name): \(message)\n".utf8))
        return 64
    }
}
