import Contracts
import GatewayClient

/// The interactive terminal client (no subcommand). This build has none: it says so and returns
/// the usage exit code. The terminal UI replaces this file with a call to `TerminalApp.run`.
func runInteractive(locale: MessageLocale, endpoint: String, open: @escaping OpenFlow) -> Int32 {
    writeStandardError("interactive mode is not in this build; see --help\n")
    return ExitCode.usage.rawValue
}
