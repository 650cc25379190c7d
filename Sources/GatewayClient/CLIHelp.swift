extension CLIInvocation {
    /// `--help` for `subcommand`, or for the program when nil.
    public static func help(for subcommand: String?) -> String {
        switch subcommand {
        case "login":
            return """
                usage: gateway-cli login --phone PHONE --password-stdin [options]

                Logs in with a phone number through the login flow (flow.login): sends the phone and
                the password, taps the login button once it is enabled, and prints the tip line (the
                login result). The password is read from standard input (the first line), or asked
                for without echo when standard input is a terminal.

                  --phone PHONE       the phone number (the account's username)
                  --password-stdin    read the password from standard input (required)

                example: printf '%s\\n' "$PW" | gateway-cli login --phone 13800138000 --password-stdin

                """ + commonHelp
        case "register":
            return """
                usage: gateway-cli register --username NAME --password-stdin [options]

                Registers an account through the registration flow (flow.register): sends the
                username, the password and the repeated password, taps the button once enabled, and
                prints the alert. Standard input: the password on the first line, the repeated
                password on the second (the same as the first when there is no second line).

                  --username NAME     the new account's username
                  --password-stdin    read the passwords from standard input (required)

                example: printf '%s\\n' "$PW" | gateway-cli register --username ann2024 --password-stdin

                """ + commonHelp
        case "signin":
            return """
                usage: gateway-cli signin --username NAME --password-stdin [options]

                Signs in with a username (flow.signin): sends the username and the password, taps the
                button once enabled, and prints the result; on success the session token follows on
                its own line (use it with `gateway-cli heroes --token`).

                  --username NAME     the account's username
                  --password-stdin    read the password from standard input (required)

                example: TOKEN=$(printf '%s\\n' "$PW" | gateway-cli signin --username ann2024 \\
                         --password-stdin | tail -n 1)

                """ + commonHelp
        case "heroes":
            return """
                usage: gateway-cli heroes [--query TEXT] [--page N] --token TOKEN [options]

                Searches the hero list (flow.heroes): prints one hero name per line, then the total.

                  --query TEXT        part of a name, any case (default: every hero)
                  --page N            the page, from 1 (sent as the flow's `page` input, from 0)
                  --token TOKEN       a session token from signin or login (or GATEWAY_CLI_TOKEN)

                example: gateway-cli heroes --query man --token "$TOKEN"

                """ + commonHelp
        case "numbers":
            return """
                usage: gateway-cli numbers A B C [options]

                Adds three numbers (flow.numbers) and prints the sum. The gateway reads each as an
                integer; text it cannot read counts as 0; a sum out of range is refused (exit 1).

                example: gateway-cli numbers 1 2 3

                """ + commonHelp
        default:
            return """
                usage: gateway-cli [options] [SUBCOMMAND [subcommand options]]

                The gateway's client. Without a subcommand it opens the interactive terminal client;
                with one it runs a flow as a script and exits.

                subcommands:
                  login      log in with a phone number and a password
                  register   register a username
                  signin     sign in with a username; prints the session token
                  heroes     search the hero list (needs a token)
                  numbers    add three numbers

                `gateway-cli SUBCOMMAND --help` describes each.

                """ + commonHelp
        }
    }

    /// The options and exit codes every subcommand shares.
    static let commonHelp = """
        options (also before the subcommand):
          --endpoint ENDPOINT   the gateway (GATEWAY_CLI_ENDPOINT; default \(defaultEndpoint))
          --server-key KEY      the gateway's CURVE public key: a file or 40 Z85 characters
                                (GATEWAY_CLI_SERVER_KEY; default: the first curve.pub found in
                                $STACK_DIR/gateway/ when STACK_DIR is set, then
                                reactive-login/stack/gateway/ (make run, make up), then
                                reactive-login/gateway/, under $XDG_STATE_HOME or ~/.local/state)
          --curve on|off        CURVE encryption (GATEWAY_CLI_CURVE; default on)
          --lang LANG           zh-Hans, zh-Hant or en (GATEWAY_CLI_LANG; default from LC_ALL,
                                LC_MESSAGES or LANG: zh_TW/zh_HK/zh_MO → zh-Hant, other zh → zh-Hans,
                                anything else → en)
          --json                print every output event as one JSON line, then a result line
          --trace               ask the gateway for the trace of every input sent: with --json a
                                {"output":"trace","input":…,"trace":{…}} line after the input's
                                outputs, else a waterfall of its hops on standard error; in the
                                interactive client Ctrl-T shows the screen's latest trace
          --timeout SECONDS     give up after this long (GATEWAY_CLI_TIMEOUT; default 10)
          -h, --help            this help
          --version             the version

        exit codes:
          0   success
          1   refused: an invalid field, a wrong password, a taken username, an overflow,
              an expired token
          2   the gateway (or a service behind it) is unreachable, or the timeout passed
          3   an unexpected answer or error from the gateway
          64  bad usage: unknown subcommand or option, missing value, no server key
          130 interrupted (Ctrl-C, SIGTERM)

        """
}
