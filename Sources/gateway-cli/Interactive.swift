import Contracts
import GatewayClient
import TerminalUI

/// The interactive terminal client (no subcommand): the ncursesw screens of `TerminalUI`, every one
/// bound to a gateway channel opened through `open`; a screen whose channel failed reopens when
/// `connection` reaches the gateway again; with `tracing`, Ctrl-T shows each screen's latest trace.
/// Blocks until the user quits.
func runInteractive(
    locale: MessageLocale, endpoint: String, connection: GatewayConnection, open: @escaping OpenFlow,
    tracing: Bool
) -> Int32 {
    TerminalApp.run(
        locale: locale, endpoint: endpoint, open: open,
        reconnections: connection.client.connectionChanges.filter(\.isUp).map { _ in () }, tracing: tracing)
}
