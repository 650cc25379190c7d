import Foundation
import Testing

/// `gateway-cli`'s interactive mode (TerminalUI over ncursesw) in a real pseudo-terminal: tmux runs
/// it in an 80x24 pane against the four servers; the test types with `send-keys` and reads the
/// screen with `capture-pane`, polling until the expected text shows (with a deadline).
@Suite(
    "end to end: the interactive login screen in tmux", .timeLimit(.minutes(2)),
    .enabled(if: TmuxSession.executable != nil, "tmux is not installed (needed to drive a terminal)"))
struct TerminalScreenTests {
    @Test("menu → phone login: short phone tip, enabled button, login succeeded; Esc back; Ctrl-C quits")
    func phoneLoginScreen() async throws {
        try await SharedGatewayStack.flows.with { stack in
            let phone = "133" + randomDigits(8)
            try await stack.register(phone)
            let command =
                "unset GATEWAY_CLI_ENDPOINT GATEWAY_CLI_SERVER_KEY GATEWAY_CLI_CURVE GATEWAY_CLI_LANG; "
                + "HOME=\(shellQuoted(stack.cliStateHome)) XDG_STATE_HOME=\(shellQuoted(stack.cliStateHome)) "
                + ([try Binaries.path("gateway-cli")] + stack.cliConnection + ["--lang", "en"])
                .map(shellQuoted).joined(separator: " ")
                // The pane lives on after the client (tmux may drop a dying pane's last output).
                + "; echo \"gateway-cli exited $?\"; exec cat"
            let tmux = try await TmuxSession.start(command, in: stack.directory)
            do {
                try await drive(tmux, phone: phone)
            } catch {
                let screen = (try? await tmux.screen()) ?? "(no screen)"
                await tmux.kill()
                throw SupportError("\(error)\nlast screen:\n\(screen)")
            }
            await tmux.kill()
        }
    }

    /// A script's password typed at the prompt (echo off), its refusal on standard error: the
    /// message is on a line of its own, and what the shell prints next starts on the next line.
    @Test("a script in a terminal: the password prompt, then the refusal on its own line")
    func scriptRefusalInATerminal() async throws {
        try await SharedGatewayStack.flows.with { stack in
            let phone = "133" + randomDigits(8)
            try await stack.register(phone)
            let command =
                "HOME=\(shellQuoted(stack.cliStateHome)) XDG_STATE_HOME=\(shellQuoted(stack.cliStateHome)) "
                + ([try Binaries.path("gateway-cli")] + stack.cliConnection
                + ["login", "--phone", phone, "--password-stdin", "--lang", "zh-Hant"])
                .map(shellQuoted).joined(separator: " ")
                + "; echo \"exit $?\"; exec cat"
            let tmux = try await TmuxSession.start(command, in: stack.directory)
            do {
                try await tmux.waitFor("密碼:")  // capture-pane drops trailing blanks
                try await tmux.type("wrong12")
                try await tmux.press("Enter")
                let screen = try await tmux.waitFor("exit ")
                let rows = screen.split(separator: "\n", omittingEmptySubsequences: false).map {
                    $0.trimmingCharacters(in: .whitespaces)
                }
                #expect(Array(rows.prefix(3)) == ["密碼:", "登入失敗 密碼錯誤", "exit 1"], "\(screen)")
            } catch {
                let screen = (try? await tmux.screen()) ?? "(no screen)"
                await tmux.kill()
                throw SupportError("\(error)\nlast screen:\n\(screen)")
            }
            await tmux.kill()
        }
    }

    /// `--trace` in a real terminal: after a keystroke on the login screen, Ctrl-T shows the panel
    /// with that keystroke's trace (the gateway's hop and validation-service's), within 80x24 and
    /// above the footer; Ctrl-T again hides it.
    @Test("gateway-cli --trace: Ctrl-T shows the last keystroke's waterfall above the footer, again hides it")
    func tracePanel() async throws {
        try await SharedGatewayStack.flows.with { stack in
            let command =
                "unset GATEWAY_CLI_ENDPOINT GATEWAY_CLI_SERVER_KEY GATEWAY_CLI_CURVE GATEWAY_CLI_LANG; "
                + "HOME=\(shellQuoted(stack.cliStateHome)) XDG_STATE_HOME=\(shellQuoted(stack.cliStateHome)) "
                + ([try Binaries.path("gateway-cli")] + stack.cliConnection + ["--lang", "en", "--trace"])
                .map(shellQuoted).joined(separator: " ")
                + "; echo \"gateway-cli exited $?\"; exec cat"
            let tmux = try await TmuxSession.start(command, in: stack.directory)
            do {
                try await driveTrace(tmux)
            } catch {
                let screen = (try? await tmux.screen()) ?? "(no screen)"
                await tmux.kill()
                throw SupportError("\(error)\nlast screen:\n\(screen)")
            }
            await tmux.kill()
        }
    }

    private func driveTrace(_ tmux: TmuxSession) async throws {
        func lines(_ screen: String) -> [String] {
            screen.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        }
        try await tmux.waitFor("> 1  Log in")
        try await tmux.press("Enter")
        try await tmux.waitFor("Ctrl-T trace")
        try await tmux.type("138")
        try await tmux.waitFor("Phone number too short")
        try await tmux.press("C-t")
        let shown = try await tmux.waitForScreen("the panel with the keystroke's hops") {
            hasTraceHeading($0) && $0.contains("gateway:") && $0.contains("validation")
        }
        let rows = lines(shown)
        #expect(rows.allSatisfy { $0.count <= 80 }, "\(shown)")
        let heading = rows.firstIndex { $0.contains("trace ") && $0.contains(" hops") } ?? rows.count
        let footer = rows.lastIndex { $0.contains("Ctrl-T trace") } ?? -1
        #expect(heading < footer, "the panel is above the footer:\n\(shown)")
        let panel = heading < footer ? Array(rows[heading..<footer]) : []
        #expect(panel.contains { $0.contains(" ms") }, "\(shown)")
        try await tmux.press("C-t")
        try await tmux.waitForScreen("the panel hidden again") {
            !hasTraceHeading($0) && $0.contains("Phone number too short")
        }
        try await tmux.press("C-c")
        try await tmux.waitFor("gateway-cli exited 0")
    }

    /// Whether `screen` shows a trace panel's heading: `trace` and a 32-digit hex trace id.
    private func hasTraceHeading(_ screen: String) -> Bool {
        screen.range(of: "trace [0-9a-f]{32} ", options: .regularExpression) != nil
    }

    private func drive(_ tmux: TmuxSession, phone: String) async throws {
        func lines(_ screen: String) -> [String] {
            screen.split(separator: "\n", omittingEmptySubsequences: false).map {
                $0.trimmingCharacters(in: .whitespaces)
            }
        }
        try await tmux.waitForScreen("the menu") {
            lines($0).first == "Reactive login" && $0.contains("> 1  Log in")
        }

        try await tmux.press("Enter")
        try await tmux.waitFor("Reactive login > Log in")
        try await tmux.type("138")
        // The tip line (below the button) holds the message alone; the field's own line has `[x]`.
        let short = try await tmux.waitForScreen("the short-phone tip") {
            lines($0).contains("Phone number too short") && $0.contains("[x] Phone number too short")
        }
        #expect(short.contains("( Log in )"), "the button is disabled:\n\(short)")

        try await tmux.press("BSpace", "BSpace", "BSpace")
        try await tmux.type(phone)
        try await tmux.press("Enter")  // on to the password field
        try await tmux.type("secret1")
        // Six characters already make a valid password: wait for all seven stars too.
        let enabled = try await tmux.waitForScreen("the enabled button") {
            $0.contains("< Log in >") && $0.contains("[******* ")
        }
        #expect(!enabled.contains("secret"), "the password is masked:\n\(enabled)")

        try await tmux.press("Tab")  // on to the button (Enter here would tap it at once)
        try await tmux.waitForScreen("the focused button") {
            lines($0).contains { $0.hasPrefix(">") && $0.hasSuffix("< Log in >") }
        }
        try await tmux.press("Enter")  // tap
        // The tip wraps at 80 columns: the token, too long for the rest of the row, shows whole on
        // the next.
        let done = try await tmux.waitFor("Login succeeded, user: \(phone), token:")
        let rows = lines(done)
        let tip = try #require(rows.firstIndex { $0.hasPrefix("Login succeeded, user: \(phone), token:") })
        #expect(tip + 1 < rows.count && rows[tip + 1].count >= 20, "\(done)")

        try await tmux.press("Escape")
        // A capture can land mid-redraw (the menu drawn, the old tip not yet cleared): wait for the
        // finished screen, which must show the menu and no stale tip (waitForScreen throws if it
        // never does).
        let back = try await tmux.waitForScreen("the menu again, without the login screen's tip") {
            lines($0).first == "Reactive login" && $0.contains("> 1  Log in")
                && !$0.contains("Login succeeded")
        }
        #expect(!back.contains("Login succeeded"))

        // The shell that ran the client prints its exit status once the client is gone: the terminal
        // is back in its normal mode, the client's screen gone.
        try await tmux.press("C-c")
        let after = try await tmux.waitFor("gateway-cli exited ")
        #expect(lines(after).contains("gateway-cli exited 0"), "\(after)")
        #expect(!after.contains("Reactive login"), "\(after)")
    }
}
