import Contracts
import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// The texts the CLI prints, per locale (MessageCatalogue; docs/gateway/cli.md).
private struct CLITexts: Sendable {
    let locale: MessageLocale
    let phoneShort, wrongPassword, loginFailed, registerOK, exists, passwordMin, unknownUser: String
    let networkError, overflow, sessionExpired, checking, available, passwordOK: String
    /// The names of the heroes 103, 106, 111, 120, 150 (the matches of `man`).
    let manHeroes: [String]
    /// `login.ok` for a name, with `<token>`.
    let loginOK: @Sendable (String) -> String
    /// `ui.total` for a count.
    let total: @Sendable (Int) -> String

    static let all: [CLITexts] = [
        CLITexts(
            locale: .zhHans, phoneShort: "号码长度不足", wrongPassword: "密码错误", loginFailed: "登录失败 密码错误",
            registerOK: "注册成功", exists: "账户已存在", passwordMin: "密码长度至少6个字符",
            unknownUser: "用户名不存在", networkError: "网络或数据解析错误！", overflow: "数值溢出",
            sessionExpired: "未登录或会话已失效，请重新登录", checking: "正在检查用户名…", available: "用户名可用", passwordOK: "密码可用",
            manHeroes: ["飞跃大海的神猴哈奴曼", "失落百年的渔夫浦岛太郎", "乌里的弩手威廉·退尔", "黄金之王曼萨·穆萨", "引路奔向自由的哈丽特·塔布曼"],
            loginOK: { "登录成功，用户名:\($0)，标识符:<token>" }, total: { "共\($0)个" }),
        CLITexts(
            locale: .zhHant, phoneShort: "號碼長度不足", wrongPassword: "密碼錯誤", loginFailed: "登入失敗 密碼錯誤",
            registerOK: "註冊成功", exists: "帳戶已存在", passwordMin: "密碼至少需6個字元",
            unknownUser: "使用者名稱不存在", networkError: "網路或資料解析錯誤！", overflow: "數值溢位",
            sessionExpired: "未登入或工作階段已失效，請重新登入", checking: "正在檢查使用者名稱…", available: "使用者名稱可用",
            passwordOK: "密碼可用",
            manHeroes: ["飛躍大海的神猴哈奴曼", "失落百年的漁夫浦島太郎", "烏里的弩手威廉·退爾", "黃金之王曼薩·穆薩", "引路奔向自由的哈麗特·塔布曼"],
            loginOK: { "登入成功，使用者名稱:\($0)，識別碼:<token>" }, total: { "共\($0)個" }),
        CLITexts(
            locale: .en, phoneShort: "Phone number too short", wrongPassword: "Wrong password",
            loginFailed: "Login failed: Wrong password", registerOK: "Registration succeeded",
            exists: "Account already exists", passwordMin: "Password must be at least 6 characters",
            unknownUser: "Username does not exist", networkError: "Network or data parsing error!",
            overflow: "Number too large",
            sessionExpired: "Not signed in, or the session has ended; sign in again",
            checking: "Checking username…", available: "Username available",
            passwordOK: "Password acceptable",
            manHeroes: [
                "Hanuman, the Leaping Monkey", "Urashima Taro, the Fisherman Who Lost Centuries",
                "William Tell, Crossbowman of Uri", "Mansa Musa, King of Gold",
                "Harriet Tubman, Conductor to Freedom",
            ],
            loginOK: { "Login succeeded, user: \($0), token: <token>" }, total: { "\($0) in all" }),
    ]
}

/// The stack of ``StackCLITests`` (shared with ``TerminalScreenTests``), started once.
private let cliStack = SharedGatewayStack.flows

/// Expects `run` to have ended with `exit` and printed exactly `lines` (tokens as `<token>`) and
/// nothing on standard error.
///
/// `ordered: false` is for flows whose fields are checked by different services: the lines may
/// interleave across outputs, but each output's own lines come exactly in `lines`' order, and the
/// result line is last.
private func expect(
    _ run: CLIRun, exit: Int32, _ lines: [String], ordered: Bool = true,
    sourceLocation: SourceLocation = #_sourceLocation
) {
    #expect(run.status == .exited(exit), "\(run)", sourceLocation: sourceLocation)
    #expect(run.standardError == "", sourceLocation: sourceLocation)
    if ordered {
        #expect(run.lines == lines, sourceLocation: sourceLocation)
        return
    }
    #expect(run.lines.last == lines.last, sourceLocation: sourceLocation)
    #expect(run.lines.sorted() == lines.sorted(), "\(run.lines)", sourceLocation: sourceLocation)
    for name in Set(lines.map(outputName)) {
        #expect(
            run.lines.filter { outputName($0) == name } == lines.filter { outputName($0) == name },
            sourceLocation: sourceLocation)
    }
}

/// The `output` member of a JSON line (`result` for the result line).
private func outputName(_ line: String) -> String {
    let value = try? JSONDecoder().decode(JSONValue.self, from: Data(line.utf8))
    return value?["output"]?.string ?? "result"
}

/// A JSON string literal's content (the encoder escapes nothing in these texts but `"` and `\`).
private func json(_ text: String) -> String {
    text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
}

/// The login flow's opening outputs (every output once, docs/ARCHITECTURE.md §2.1).
private let loginOpening = [
    #"{"output":"phone","state":"empty","message":""}"#,
    #"{"output":"password","state":"empty","message":""}"#,
    #"{"output":"loginEnabled","value":false}"#,
    #"{"output":"loggingIn","value":false}"#,
    #"{"output":"tip","message":""}"#,
]

@Suite("end to end: the four servers driven through gateway-cli --json", .timeLimit(.minutes(2)))
struct StackCLITests {
    @Test("login: success 0 with login.ok; wrong password and unknown phone 1; invalid phone 1")
    func login() async throws {
        try await cliStack.with { stack in
            let phone = "139" + randomDigits(8)
            try await stack.register(phone)
            for texts in CLITexts.all {
                let lang = ["--json", "--lang", texts.locale.rawValue]
                let ok = try await stack.cli(
                    ["login", "--phone", phone, "--password-stdin"] + lang, input: "secret1\n")
                let message = json(texts.loginOK(phone))
                expect(
                    ok, exit: 0,
                    loginOpening + [
                        #"{"output":"phone","state":"ok","message":""}"#,
                        #"{"output":"password","state":"ok","message":""}"#,
                        #"{"output":"loginEnabled","value":true}"#,
                        #"{"output":"loggingIn","value":true}"#,
                        #"{"output":"loggingIn","value":false}"#,
                        #"{"output":"tip","code":"login.ok","message":"\#(message)","name":"\#(phone)","token":"<token>"}"#,
                        #"{"result":"succeeded","exit":0,"message":"\#(message)","token":"<token>"}"#,
                    ])
                #expect(ok.token?.isEmpty == false)

                // A wrong password and a phone nobody registered read the same.
                for who in [phone, "137" + randomDigits(8)] {
                    let wrong = try await stack.cli(
                        ["login", "--phone", who, "--password-stdin"] + lang, input: "wrong12\n")
                    let failed = json(texts.loginFailed)
                    expect(
                        wrong, exit: 1,
                        loginOpening + [
                            #"{"output":"phone","state":"ok","message":""}"#,
                            #"{"output":"password","state":"ok","message":""}"#,
                            #"{"output":"loginEnabled","value":true}"#,
                            #"{"output":"loggingIn","value":true}"#,
                            #"{"output":"loggingIn","value":false}"#,
                            #"{"output":"tip","code":"login.failed","message":"\#(failed)"}"#,
                            #"{"result":"refused","exit":1,"message":"\#(failed)"}"#,
                        ])
                }

                let invalid = try await stack.cli(
                    ["login", "--phone", "138", "--password-stdin"] + lang, input: "secret1\n")
                expect(
                    invalid, exit: 1,
                    loginOpening + [
                        #"{"output":"phone","state":"failed","code":"phone.short","message":"\#(texts.phoneShort)"}"#,
                        #"{"output":"tip","code":"phone.short","message":"\#(texts.phoneShort)"}"#,
                        #"{"output":"password","state":"ok","message":""}"#,
                        #"{"result":"refused","exit":1,"message":"\#(texts.phoneShort)"}"#,
                    ])
            }
        }
    }

    /// The CLI sends the three fields at once; the username's check goes through auth-service, so
    /// its results may come before or after the passwords': each output's own sequence is exact.
    @Test("register: a new user 0; the same name again 1; a short password 1")
    func register() async throws {
        try await cliStack.with { stack in
            for texts in CLITexts.all {
                let username = "reg" + randomDigits(9)
                let arguments = ["register", "--username", username, "--password-stdin", "--json", "--lang"]
                let opening = [
                    #"{"output":"username","state":"empty","message":""}"#,
                    #"{"output":"password","state":"empty","message":""}"#,
                    #"{"output":"repeatPassword","state":"empty","message":""}"#,
                    #"{"output":"passwordEnabled","value":false}"#,
                    #"{"output":"repeatEnabled","value":false}"#,
                    #"{"output":"registerEnabled","value":false}"#,
                    #"{"output":"registering","value":false}"#,
                ]
                let checking =
                    #"{"output":"username","state":"validating","code":"username.checking","message":"\#(texts.checking)"}"#
                let passwordOK =
                    #"{"output":"password","state":"ok","code":"password.ok","message":"\#(texts.passwordOK)"}"#
                let exists =
                    #"{"output":"username","state":"failed","code":"username.exists","message":"\#(texts.exists)"}"#
                let made = try await stack.cli(
                    arguments + [texts.locale.rawValue], input: "secret1\nsecret1\n")
                expect(
                    made, exit: 0,
                    opening + [
                        checking,
                        #"{"output":"username","state":"ok","code":"username.available","message":"\#(texts.available)"}"#,
                        #"{"output":"passwordEnabled","value":true}"#, passwordOK,
                        #"{"output":"repeatEnabled","value":true}"#,
                        #"{"output":"repeatPassword","state":"ok","message":""}"#,
                        #"{"output":"registerEnabled","value":true}"#,
                        #"{"output":"registerEnabled","value":false}"#,
                        #"{"output":"registering","value":true}"#, exists,
                        #"{"output":"passwordEnabled","value":false}"#,
                        #"{"output":"registering","value":false}"#,
                        #"{"output":"alert","code":"register.ok","message":"\#(texts.registerOK)","kind":"success"}"#,
                        #"{"result":"succeeded","exit":0,"message":"\#(texts.registerOK)"}"#,
                    ], ordered: false)
                let taken = try await stack.cli(arguments + [texts.locale.rawValue], input: "secret1\n")
                expect(
                    taken, exit: 1,
                    opening + [
                        checking, passwordOK, #"{"output":"repeatEnabled","value":true}"#,
                        #"{"output":"repeatPassword","state":"ok","message":""}"#, exists,
                        #"{"result":"refused","exit":1,"message":"\#(texts.exists)"}"#,
                    ], ordered: false)
                let short = try await stack.cli(
                    [
                        "register", "--username", "reg" + randomDigits(9), "--password-stdin", "--json",
                        "--lang",
                        texts.locale.rawValue,
                    ], input: "abc\n")
                // The script stops at the output that gives the last field its result: unless that
                // is the username's, `passwordEnabled: true` (sent right after it) is printed too.
                let available =
                    #"{"output":"username","state":"ok","code":"username.available","message":"\#(texts.available)"}"#
                let tooShort =
                    #"{"output":"password","state":"failed","code":"password.min","message":"\#(texts.passwordMin)"}"#
                let repeatOK = #"{"output":"repeatPassword","state":"ok","message":""}"#
                let usernameLast = short.lines.dropLast().last == available
                expect(
                    short, exit: 1,
                    opening + [checking, tooShort, repeatOK, available]
                        + (usernameLast ? [] : [#"{"output":"passwordEnabled","value":true}"#])
                        + [#"{"result":"refused","exit":1,"message":"\#(texts.passwordMin)"}"#],
                    ordered: false)
            }
        }
    }

    @Test("signin: 0 with the session's token, then heroes with it; wrong password 1; unknown user 1")
    func signinAndHeroes() async throws {
        try await cliStack.with { stack in
            let username = "sig" + randomDigits(9)
            try await stack.register(username)
            for texts in CLITexts.all {
                let lang = ["--json", "--lang", texts.locale.rawValue]
                let opening = [
                    #"{"output":"username","state":"empty","message":""}"#,
                    #"{"output":"loginEnabled","value":false}"#,
                    #"{"output":"loggingIn","value":false}"#,
                    #"{"output":"username","state":"validating","code":"username.checking","message":"\#(texts.checking)"}"#,
                ]
                let tapped = [
                    #"{"output":"username","state":"ok","code":"username.exists","message":"\#(texts.exists)"}"#,
                    #"{"output":"loginEnabled","value":true}"#,
                    #"{"output":"loginEnabled","value":false}"#,
                    #"{"output":"loggingIn","value":true}"#,
                    #"{"output":"loginEnabled","value":true}"#,
                    #"{"output":"loggingIn","value":false}"#,
                ]
                let signin = try await stack.cli(
                    ["signin", "--username", username, "--password-stdin"] + lang, input: "secret1\n")
                let message = json(texts.loginOK(username))
                expect(
                    signin, exit: 0,
                    opening + tapped + [
                        #"{"output":"alert","code":"login.ok","message":"\#(message)","kind":"success"}"#,
                        #"{"output":"session","name":"\#(username)","token":"<token>"}"#,
                        #"{"result":"succeeded","exit":0,"message":"\#(message)","token":"<token>"}"#,
                    ])
                let token = try #require(signin.token)
                let wrong = try await stack.cli(
                    ["signin", "--username", username, "--password-stdin"] + lang, input: "wrong12\n")
                expect(
                    wrong, exit: 1,
                    opening + tapped + [
                        #"{"output":"alert","code":"login.wrongPassword","message":"\#(texts.wrongPassword)","kind":"failure"}"#,
                        #"{"result":"refused","exit":1,"message":"\#(texts.wrongPassword)"}"#,
                    ])
                // The live username check says the account does not exist (docs/ARCHITECTURE.md §2.3), so there
                // is no tap: the refusal is that field's message.
                let unknown = try await stack.cli(
                    ["signin", "--username", "nob" + randomDigits(9), "--password-stdin"] + lang,
                    input: "wrong12\n")
                expect(
                    unknown, exit: 1,
                    opening + [
                        #"{"output":"username","state":"failed","code":"username.unknown","message":"\#(texts.unknownUser)"}"#,
                        #"{"result":"refused","exit":1,"message":"\#(texts.unknownUser)"}"#,
                    ])

                let heroes = try await stack.cli(["heroes", "--query", "man", "--token", token] + lang)
                #expect(heroes.status == .exited(0), "\(heroes)")
                var lines = heroes.lines
                let page = lines.count > 5 ? lines.remove(at: 5) : ""
                #expect(
                    lines == [
                        #"{"output":"heroes","heroes":[]}"#, #"{"output":"total","number":0}"#,
                        #"{"output":"error","message":""}"#, #"{"output":"searching","value":false}"#,
                        #"{"output":"searching","value":true}"#, #"{"output":"total","number":5}"#,
                        #"{"output":"searching","value":false}"#,
                        #"{"result":"succeeded","exit":0,"message":"\#(texts.total(5))"}"#,
                    ])
                let shown = try JSONDecoder().decode(PageLine.self, from: Data(page.utf8))
                #expect(shown.output == "heroes")
                #expect(shown.heroes.map(\.id) == [103, 106, 111, 120, 150])
                #expect(shown.heroes.map(\.name) == texts.manHeroes)
                #expect(shown.heroes.allSatisfy { !$0.intro.isEmpty })

                let stale = try await stack.cli(["heroes", "--token", "not-a-session"] + lang)
                expect(
                    stale, exit: 1,
                    [
                        #"{"output":"heroes","heroes":[]}"#, #"{"output":"total","number":0}"#,
                        #"{"output":"error","message":""}"#, #"{"output":"searching","value":false}"#,
                        #"{"output":"searching","value":true}"#,
                        #"{"output":"heroes","heroes":[],"query":"","page":0,"total":0,"page_size":50}"#,
                        #"{"output":"error","code":"session.expired","message":"\#(texts.sessionExpired)"}"#,
                        #"{"output":"searching","value":false}"#,
                        #"{"result":"refused","exit":1,"message":"\#(texts.sessionExpired)"}"#,
                    ])
            }
        }
    }

    @Test("numbers: 1 2 3 is 6; an overflow is refused; unreadable text counts as 0")
    func numbers() async throws {
        try await cliStack.with { stack in
            for texts in CLITexts.all {
                let lang = ["--json", "--lang", texts.locale.rawValue]
                expect(
                    try await stack.cli(["numbers", "1", "2", "3"] + lang), exit: 0,
                    [
                        #"{"output":"sum","number":0}"#, #"{"output":"sum","number":1}"#,
                        #"{"output":"sum","number":3}"#, #"{"output":"sum","number":6}"#,
                        #"{"result":"succeeded","exit":0,"message":"6"}"#,
                    ])
                expect(
                    try await stack.cli(["numbers", "9223372036854775807", "1", "0"] + lang), exit: 1,
                    [
                        #"{"output":"sum","number":0}"#, #"{"output":"sum","number":9223372036854775807}"#,
                        #"{"output":"sum","code":"numbers.overflow","message":"\#(texts.overflow)"}"#,
                        #"{"result":"refused","exit":1,"message":"\#(texts.overflow)"}"#,
                    ])
                expect(
                    try await stack.cli(["numbers", "x", "y", "z"] + lang), exit: 0,
                    [#"{"output":"sum","number":0}"#, #"{"result":"succeeded","exit":0,"message":"0"}"#])
            }
        }
    }

    /// Without `--json`: a success on standard output, a refusal on standard error, each line
    /// ended by a newline (nothing glued to what the shell prints next).
    @Test("text mode: the result's lines end with a newline, on stdout or stderr")
    func textMode() async throws {
        try await cliStack.with { stack in
            let phone = "136" + randomDigits(8)
            try await stack.register(phone)
            let ok = try await stack.cli(
                ["login", "--phone", phone, "--password-stdin", "--lang", "zh-Hant"], input: "secret1\n")
            #expect(ok.status == .exited(0), "\(ok)")
            let token = try #require(ok.standardOutput.split(separator: "\n").last.map(String.init))
            #expect(ok.standardOutput == "登入成功，使用者名稱:\(phone)，識別碼:\(token)\n\(token)\n")
            #expect(ok.standardError == "")
            for (arguments, input, message) in [
                (["login", "--phone", phone], "wrong12\n", "登入失敗 密碼錯誤\n"),
                (["login", "--phone", "138"], "secret1\n", "號碼長度不足\n"),
                (["signin", "--username", phone], "wrong12\n", "密碼錯誤\n"),
                (["register", "--username", phone], "secret1\n", "帳戶已存在\n"),
                (["numbers", "9223372036854775807", "1", "0"], "", "數值溢位\n"),
            ] {
                let refused = try await stack.cli(
                    arguments + (input.isEmpty ? [] : ["--password-stdin"]) + ["--lang", "zh-Hant"],
                    input: input)
                #expect(refused.status == .exited(1), "\(refused)")
                #expect(refused.standardOutput == "")
                #expect(refused.standardError == message)
            }
            let heroes = try await stack.cli([
                "heroes", "--query", "william tell", "--token", token, "--lang", "en",
            ])
            #expect(heroes.status == .exited(0), "\(heroes)")
            #expect(heroes.standardOutput == "William Tell, Crossbowman of Uri\n1 in all\n")
        }
    }

    @Test("an unreachable gateway is exit 2; bad usage is 64")
    func unreachableAndUsage() async throws {
        try await cliStack.with { stack in
            let nowhere = "ipc://" + stack.directory.file("nobody.sock")
            let unreachable = try await GatewayStack.runCLI(
                [
                    "numbers", "1", "2", "3", "--json", "--lang", "en", "--timeout", "1", "--endpoint",
                    nowhere,
                    "--server-key", stack.gatewayKeyFile,
                ], input: "", home: stack.cliStateHome, in: stack.directory)
            expect(
                unreachable, exit: 2,
                [
                    #"{"result":"timed_out","exit":2,"message":"no result from flow.numbers within 1 s "#
                        + #"(is the gateway running at \#(nowhere), with this key?)"}"#
                ])
            let usages = [
                (
                    ["frobnicate", "--json"],
                    "gateway-cli: unknown subcommand frobnicate (one of: login, register, signin, heroes, "
                        + "numbers)\nsee: gateway-cli --help\n"
                ),
                (
                    ["login", "--phone", "13800138000", "--password", "secret1", "--json"],
                    "gateway-cli: passwords are never taken from the command line: use --password-stdin\n"
                        + "see: gateway-cli login --help\n"
                ),
            ]
            for (arguments, message) in usages {
                let usage = try await stack.cli(arguments)
                #expect(usage.status == .exited(64), "\(usage)")
                #expect(usage.standardOutput == "")
                #expect(usage.standardError == message)
            }
        }
    }
}

/// A `heroes` output line, decoded.
private struct PageLine: Decodable {
    struct Hero: Decodable {
        let id: Int
        let name: String
        let intro: String
    }
    let output: String
    let heroes: [Hero]
}

/// The stack of ``StackOutageTests`` (its own: the tests kill its services; each test kills a
/// different one and needs only the others).
private let outageStack = SharedGatewayStack()

@Suite("end to end: services killed (and restarted) under gateway-cli", .timeLimit(.minutes(2)))
struct StackOutageTests {
    /// Runs `gateway-cli login` (JSON, `locale`) until `done` accepts the run or `deadline` passes;
    /// returns the last run.
    private func login(
        _ stack: GatewayStack, _ phone: String, _ locale: MessageLocale, deadline: Duration,
        until done: (CLIRun) -> Bool
    ) async throws -> CLIRun {
        let end = ContinuousClock.now + deadline
        while true {
            let run = try await stack.cli(
                [
                    "login", "--phone", phone, "--password-stdin", "--json", "--lang", locale.rawValue,
                    "--timeout", "5",
                ],
                input: "secret1\n")
            if done(run) || ContinuousClock.now >= end { return run }
        }
    }

    /// A `network.error` in the login's tip is a service behind the gateway that did not answer:
    /// exit 2 (docs/gateway/cli.md, exit codes).
    @Test(
        "SIGKILL validation-service: login shows network.error (exit 2); restarted on its endpoint: login works"
    )
    func validationKilledAndRestarted() async throws {
        try await outageStack.with { stack in
            let phone = "135" + randomDigits(8)
            try await stack.register(phone)
            let before = try await stack.cli(
                ["login", "--phone", phone, "--password-stdin", "--json"], input: "secret1\n")
            #expect(before.status == .exited(0), "\(before)")

            stack.validation.child.send(SIGKILL)
            #expect(await stack.validation.child.waitForExit(timeout: .seconds(10)) == .signaled(SIGKILL))
            for texts in CLITexts.all {
                let down = try await login(stack, phone, texts.locale, deadline: .seconds(20)) {
                    $0.status == .exited(2)
                }
                #expect(down.status == .exited(2), "\(down)")
                #expect(down.standardError == "")
                #expect(down.lines.prefix(5) == ArraySlice(loginOpening))
                #expect(
                    down.lines.contains(
                        #"{"output":"tip","code":"network.error","message":"\#(texts.networkError)"}"#),
                    "\(down)")
                #expect(
                    down.lines.last
                        == #"{"result":"unreachable","exit":2,"message":"\#(texts.networkError)"}"#)
            }

            let restarted = try await GatewayStack.startValidation(
                in: stack.directory, auth: stack.auth.endpoint, endpoint: stack.validation.endpoint)
            do {
                for texts in CLITexts.all {
                    let back = try await login(stack, phone, texts.locale, deadline: .seconds(20)) {
                        $0.status == .exited(0)
                    }
                    let message = json(texts.loginOK(phone))
                    expect(
                        back, exit: 0,
                        loginOpening + [
                            #"{"output":"phone","state":"ok","message":""}"#,
                            #"{"output":"password","state":"ok","message":""}"#,
                            #"{"output":"loginEnabled","value":true}"#,
                            #"{"output":"loggingIn","value":true}"#,
                            #"{"output":"loggingIn","value":false}"#,
                            #"{"output":"tip","code":"login.ok","message":"\#(message)","name":"\#(phone)","token":"<token>"}"#,
                            #"{"result":"succeeded","exit":0,"message":"\#(message)","token":"<token>"}"#,
                        ])
                }
            } catch {
                await restarted.stop()
                throw error
            }
            await restarted.stop()
        }
    }

    /// The heroes flow sends `error` before `searching: false`, so the script sees the outage.
    @Test("SIGKILL hero-catalog-service: heroes ends with network.error, exit 2")
    func heroCatalogKilled() async throws {
        try await outageStack.with { stack in
            let username = "out" + randomDigits(9)
            try await stack.register(username)
            // The gateway's `signin` command needs only auth-service (the other test of the suite may
            // have validation-service down at this moment).
            let session = try await stack.client.request(
                Methods.Command.signin, SigninCommand(username: username, password: "secret1")
            ).value
            let token = try #require(session.token, "\(session)")
            stack.heroes.child.send(SIGKILL)
            #expect(await stack.heroes.child.waitForExit(timeout: .seconds(10)) == .signaled(SIGKILL))
            for texts in CLITexts.all {
                let down = try await stack.cli(
                    [
                        "heroes", "--token", token, "--json", "--lang", texts.locale.rawValue, "--timeout",
                        "10",
                    ])
                expect(
                    down, exit: 2,
                    [
                        #"{"output":"heroes","heroes":[]}"#, #"{"output":"total","number":0}"#,
                        #"{"output":"error","message":""}"#, #"{"output":"searching","value":false}"#,
                        #"{"output":"searching","value":true}"#,
                        #"{"output":"heroes","heroes":[],"query":"","page":0,"total":0,"page_size":50}"#,
                        #"{"output":"error","code":"network.error","message":"\#(texts.networkError)"}"#,
                        #"{"output":"searching","value":false}"#,
                        #"{"result":"unreachable","exit":2,"message":"\#(texts.networkError)"}"#,
                    ])
            }
        }
    }
}
