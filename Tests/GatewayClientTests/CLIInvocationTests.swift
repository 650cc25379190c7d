import Contracts
import GatewayClient
import Testing

@Suite(.timeLimit(.minutes(1)))
struct CLIInvocationTests {
    func parse(_ arguments: [String], _ environment: [String: String] = [:]) throws -> CLIInvocation {
        try CLIInvocation.parse(arguments, environment: environment)
    }

    func usageError(_ arguments: [String], _ environment: [String: String] = [:]) -> CLIUsageError? {
        do {
            _ = try CLIInvocation.parse(arguments, environment: environment)
            return nil
        } catch {
            return error
        }
    }

    @Test func defaults() throws {
        let invocation = try parse([])
        #expect(invocation.command == .interactive)
        #expect(invocation.endpoint == "tcp://127.0.0.1:5560")
        #expect(invocation.serverKey == nil)
        #expect(invocation.curve)
        #expect(invocation.locale == .en)
        #expect(!invocation.json)
        #expect(invocation.timeout == .seconds(10))
    }

    @Test func everySubcommand() throws {
        #expect(try parse(["login", "--phone", "138", "--password-stdin"]).command == .login(phone: "138"))
        #expect(
            try parse(["register", "--username=ann", "--password-stdin"]).command
                == .register(username: "ann"))
        #expect(
            try parse(["signin", "--password-stdin", "--username", "ann"]).command == .signin(username: "ann")
        )
        #expect(
            try parse(["heroes", "--query", "man", "--page", "2", "--token", "t"]).command
                == .heroes(query: "man", page: 2, token: "t"))
        #expect(
            try parse(["heroes"], ["GATEWAY_CLI_TOKEN": "e"]).command
                == .heroes(query: "", page: nil, token: "e"))
        #expect(try parse(["numbers", "1", "-2", "x"]).command == .numbers("1", "-2", "x"))
        #expect(try parse(["numbers", "--", "--3", "2", "1"]).command == .numbers("--3", "2", "1"))
    }

    @Test func globalOptionsAnywhere() throws {
        let invocation = try parse([
            "--endpoint", "tcp://h:1", "numbers", "1", "2", "3", "--json", "--lang", "zh-hant", "--curve=off",
            "--timeout", "0.5", "--server-key", "/k",
        ])
        #expect(invocation.endpoint == "tcp://h:1")
        #expect(invocation.json)
        #expect(invocation.locale == .zhHant)
        #expect(!invocation.curve)
        #expect(invocation.timeout == .milliseconds(500))
        #expect(invocation.serverKey == "/k")
    }

    @Test func environmentAndItsOverrides() throws {
        let environment = [
            "GATEWAY_CLI_ENDPOINT": "ipc:///tmp/g", "GATEWAY_CLI_LANG": "zh-Hans",
            "GATEWAY_CLI_SERVER_KEY": "/e",
            "GATEWAY_CLI_CURVE": "off", "GATEWAY_CLI_TIMEOUT": "3",
        ]
        let fromEnvironment = try parse(["numbers", "1", "2", "3"], environment)
        #expect(fromEnvironment.endpoint == "ipc:///tmp/g")
        #expect(fromEnvironment.locale == .zhHans)
        #expect(fromEnvironment.serverKey == "/e")
        #expect(!fromEnvironment.curve)
        #expect(fromEnvironment.timeout == .seconds(3))
        let overridden = try parse(
            ["--lang", "en", "--endpoint", "tcp://x:1", "numbers", "1", "2", "3"], environment)
        #expect(overridden.locale == .en)
        #expect(overridden.endpoint == "tcp://x:1")
    }

    @Test(arguments: [
        ("zh_TW.UTF-8", MessageLocale.zhHant), ("zh_HK.UTF-8", .zhHant), ("zh_Hant_TW", .zhHant),
        ("zh_CN.UTF-8", .zhHans), ("zh_SG", .zhHans), ("zh", .zhHans), ("en_US.UTF-8", .en), ("C", .en),
        ("", .en), ("de_DE.UTF-8", .en),
    ])
    func localeFromLang(lang: String, locale: MessageLocale) {
        #expect(CLIInvocation.locale(fromEnvironment: ["LANG": lang]) == locale)
    }

    @Test func lcAllWinsOverLang() {
        #expect(CLIInvocation.locale(fromEnvironment: ["LC_ALL": "zh_TW", "LANG": "en_US"]) == .zhHant)
        #expect(CLIInvocation.locale(fromEnvironment: ["LC_ALL": "", "LANG": "zh_CN"]) == .zhHans)
    }

    @Test func helpAndVersion() throws {
        #expect(try parse(["--help"]).command == .help(nil))
        #expect(try parse(["-h"]).command == .help(nil))
        #expect(try parse(["login", "--help"]).command == .help("login"))
        #expect(try parse(["help", "numbers"]).command == .help("numbers"))
        #expect(try parse(["--version"]).command == .version)
        for subcommand in CLIInvocation.subcommands {
            let help = CLIInvocation.help(for: subcommand)
            #expect(help.hasPrefix("usage: gateway-cli \(subcommand)"))
            #expect(help.contains("example:"))
            #expect(help.contains("64  bad usage"))
        }
        #expect(CLIInvocation.help(for: nil).contains("subcommands:"))
    }

    @Test(arguments: [
        (["frobnicate"], "unknown subcommand frobnicate"),
        (["login", "--phone", "1"], "login needs --password-stdin"),
        (["login", "--password-stdin"], "missing --phone"),
        (["login", "--phone", "", "--password-stdin"], "--phone is empty"),
        (["login", "--phone", "1", "--password", "x"], "never taken from the command line"),
        (["login", "--phone"], "--phone needs a value"),
        (["login", "--phone", "1", "--password-stdin", "extra"], "unexpected argument extra"),
        (["register", "--phone", "1"], "unknown option --phone for register"),
        (["signin", "--username", "a"], "signin needs --password-stdin"),
        (["heroes"], "missing --token"),
        (["heroes", "--token", "t", "--page", "0"], "--page needs a page number"),
        (["heroes", "--token", "t", "--page", "two"], "--page needs a page number"),
        (["numbers", "1", "2"], "numbers needs three numbers, got 2"),
        (["numbers", "1", "2", "3", "4"], "numbers needs three numbers, got 4"),
        (["--lang", "fr", "numbers", "1", "2", "3"], "--lang is zh-Hans, zh-Hant or en"),
        (["--curve", "maybe"], "--curve is on or off"),
        (["--timeout", "0"], "--timeout is a number of seconds"),
        (["--timeout", "soon"], "--timeout is a number of seconds"),
        (["--json=yes"], "--json takes no value"),
        (["-x"], "unknown option -x"),
        (["stray"], "unknown subcommand stray"),
    ])
    func badUsage(arguments: [String], message: String) {
        let error = usageError(arguments)
        #expect(error?.message.contains(message) == true, "\(arguments): \(String(describing: error))")
        #expect(error?.description.contains("--help") == true)
    }

    @Test func passwordPromptsInTheLocale() {
        #expect(CLIInvocation.Command.login(phone: "1").passwordPrompts(in: .en) == ["Password: "])
        #expect(
            CLIInvocation.Command.register(username: "a").passwordPrompts(in: .zhHans) == ["密码: ", "重复密码: "])
        #expect(CLIInvocation.Command.numbers("1", "2", "3").passwordPrompts(in: .en).isEmpty)
    }

    @Test func exitCodes() {
        #expect(ExitCode.allCases.map(\.rawValue) == [0, 1, 2, 3, 64, 130])
    }
}
