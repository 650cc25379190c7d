import Contracts
import GatewayClient
import TerminalUI

/// The interactive terminal client (no subcommand): the ncursesw screens of `TerminalUI`, every one
/// bound to a gateway channel opened through `open`. Blocks until the user quits.
func runInteractive(locale: MessageLocale, endpoint: String, open: @escaping OpenFlow) -> Int32 {
    TerminalApp.run(locale: locale, endpoint: endpoint, open: open)
}
