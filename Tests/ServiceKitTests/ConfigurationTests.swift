import ServiceKit
import Testing

private enum Mode: String, CaseIterable, Sendable {
    case fast, safe
}

private enum TestOptions {
    static let endpoint = Option(
        "endpoint", environment: "TEST_ENDPOINT", default: Endpoint(tcpHost: "127.0.0.1", port: 5555),
        parser: .endpoint, help: "Where to listen.")
    static let workers = Option(
        "workers", environment: "TEST_WORKERS", default: 2, parser: .integer(in: 1...64),
        help: "Worker threads.")
    static let verbose = Option(
        "verbose", environment: "TEST_VERBOSE", default: false, parser: .boolean, help: "Say more.")
    static let expiry = Option(
        "token-expiry", environment: "TEST_TOKEN_EXPIRY", default: Duration.seconds(86_400),
        parser: .duration, help: "Token lifetime.")
    static let memory = Option(
        "memory", environment: "TEST_MEMORY", default: 19 << 20, parser: .byteSize, help: "Hash memory.")
    static let mode = Option("mode", default: Mode.safe, parser: .choice(), help: "Durability mode.")
    static let name = Option("name", environment: "TEST_NAME", default: "x", parser: .string, help: "A name.")

    static let interface = CommandLineInterface(
        executable: "test-service", version: "1.2.3", summary: "A service for tests.",
        options: [endpoint, workers, verbose, expiry, memory, mode, name])
}

private func parse(_ arguments: [String], _ environment: [String: String] = [:]) throws(ConfigurationError)
    -> Configuration
{
    guard
        case .run(let configuration) = try TestOptions.interface.parse(
            arguments: arguments, environment: environment)
    else { preconditionFailure("expected a configuration") }
    return configuration
}

@Suite("Configuration", .timeLimit(.minutes(1)))
struct ConfigurationTests {
    @Test("defaults apply when neither flag nor variable is given")
    func defaults() throws {
        let configuration = try parse([])
        #expect(configuration[TestOptions.endpoint].description == "tcp://127.0.0.1:5555")
        #expect(configuration[TestOptions.workers] == 2)
        #expect(configuration[TestOptions.verbose] == false)
        #expect(configuration[TestOptions.expiry] == .seconds(86_400))
        #expect(configuration[TestOptions.memory] == 19 * 1_048_576)
        #expect(configuration[TestOptions.mode] == .safe)
        #expect(configuration.source(of: TestOptions.workers) == .defaultValue)
    }

    @Test("--name value and --name=value both work, for every value type")
    func flagForms() throws {
        let configuration = try parse([
            "--endpoint", "ipc:///tmp/a.sock", "--workers=8", "--verbose", "--token-expiry", "250ms",
            "--memory=64KiB", "--mode", "fast", "--name=a=b",
        ])
        #expect(configuration[TestOptions.endpoint].transport == .ipc)
        #expect(configuration[TestOptions.endpoint].address == "/tmp/a.sock")
        #expect(configuration[TestOptions.workers] == 8)
        #expect(configuration[TestOptions.verbose])
        #expect(configuration[TestOptions.expiry] == .milliseconds(250))
        #expect(configuration[TestOptions.memory] == 65_536)
        #expect(configuration[TestOptions.mode] == .fast)
        #expect(configuration[TestOptions.name] == "a=b")
        #expect(configuration.source(of: TestOptions.workers) == .flag("--workers"))
    }

    @Test("a flag beats its variable, which beats the default")
    func precedence() throws {
        let environment = ["TEST_WORKERS": "4", "TEST_NAME": "from-env", "TEST_VERBOSE": "yes"]
        let configuration = try parse(["--workers", "6"], environment)
        #expect(configuration[TestOptions.workers] == 6)
        #expect(configuration[TestOptions.name] == "from-env")
        #expect(configuration[TestOptions.verbose])
        #expect(configuration.source(of: TestOptions.name) == .environment("TEST_NAME"))
        #expect(try parse([], ["TEST_NAME": ""])[TestOptions.name] == "x")
    }

    @Test("durations, byte sizes and switches parse their documented forms")
    func valueForms() throws {
        let duration = ValueParser<Duration>.duration
        #expect(duration.parse("5s") == .seconds(5))
        #expect(duration.parse("2m") == .seconds(120))
        #expect(duration.parse("24h") == .seconds(86_400))
        for bad in ["", "5", "s", "-5s", "1.5s", "5d", "ms", "99999999999999999999h"] {
            #expect(duration.parse(bad) == nil, "\(bad)")
        }
        #expect(duration.format(.milliseconds(1_500)) == "1500ms")
        #expect(duration.format(.seconds(7_200)) == "2h")
        let size = ValueParser<Int>.byteSize
        #expect(size.parse("4096") == 4096)
        #expect(size.parse("19MiB") == 19 << 20)
        #expect(size.parse("1GiB") == 1 << 30)
        #expect(size.parse("12B") == 12)
        for bad in ["", "MiB", "-1", "1.5MiB", "10MB", "1 KiB"] { #expect(size.parse(bad) == nil, "\(bad)") }
        #expect(size.format(19 << 20) == "19MiB")
        #expect(size.format(1000) == "1000")
        #expect(ValueParser<Bool>.boolean.parse("OFF") == false)
        #expect(ValueParser<Bool>.boolean.parse("maybe") == nil)
        #expect(try parse(["--verbose=false"])[TestOptions.verbose] == false)
    }

    @Test("endpoints are checked for shape")
    func endpoints() {
        for good in [
            "tcp://*:5555", "tcp://localhost:1", "tcp://[::1]:65535", "tcp://*:*", "ipc://x", "inproc://a",
        ] {
            #expect(Endpoint(good)?.description == good)
        }
        for bad in [
            "", "tcp://", "tcp://host", "tcp://host:0", "tcp://host:70000", "tcp://:5", "udp://x:1",
            "ipc://", "inproc://a b", "localhost:5555",
        ] {
            #expect(Endpoint(bad) == nil, "\(bad)")
        }
    }

    @Test("a list of endpoints: one, or several separated by commas, each checked")
    func endpointLists() {
        let list = ValueParser<[Endpoint]>.endpoints
        #expect(list.parse("tcp://a:1")?.map(\.description) == ["tcp://a:1"])
        let three = "tcp://10.0.0.1:5562,tcp://10.0.0.2:5562,ipc:///tmp/auth.sock"
        #expect(list.parse(three)?.map(\.description) == three.split(separator: ",").map(String.init))
        #expect(list.parse(three).map(list.format) == three)
        for bad in ["", ",", "tcp://a:1,", ",tcp://a:1", "tcp://a:1,,tcp://b:2", "tcp://a:1, tcp://b:2"] {
            #expect(list.parse(bad) == nil, "\(bad)")
        }
    }

    @Test("an unknown flag suggests the nearest known one")
    func unknownFlag() {
        #expect(throws: ConfigurationError.unknownFlag("--endpont", suggestion: "--endpoint")) {
            try parse(["--endpont", "tcp://*:1"])
        }
        #expect(throws: ConfigurationError.unknownFlag("--zzzzzzzzzz", suggestion: nil)) {
            try parse(["--zzzzzzzzzz"])
        }
        let message = ConfigurationError.unknownFlag("--endpont", suggestion: "--endpoint").description
        #expect(message.contains("did you mean '--endpoint'?"))
    }

    @Test("a missing value names the flag and what it expects")
    func missingValue() {
        let expected = ConfigurationError.missingValue(flag: "--workers", expected: "an integer from 1 to 64")
        #expect(throws: expected) { try parse(["--workers"]) }
        #expect(throws: expected) { try parse(["--workers", "--verbose"]) }
        #expect(expected.description.contains("--workers"))
    }

    @Test("a bad value names the flag or the variable and what was expected")
    func badValue() {
        #expect(
            throws: ConfigurationError.badValue(
                source: .flag("--workers"), value: "65", expected: "an integer from 1 to 64")
        ) { try parse(["--workers", "65"]) }
        let fromEnvironment = ConfigurationError.badValue(
            source: .environment("TEST_TOKEN_EXPIRY"), value: "soon",
            expected: "a duration such as 250ms, 5s, 2m or 24h")
        #expect(throws: fromEnvironment) { try parse([], ["TEST_TOKEN_EXPIRY": "soon"]) }
        #expect(fromEnvironment.description.contains("environment variable TEST_TOKEN_EXPIRY"))
        #expect(
            throws: ConfigurationError.badValue(
                source: .flag("--mode"), value: "quick", expected: "one of fast, safe")
        ) {
            try parse(["--mode=quick"])
        }
    }

    @Test("an optional value defaults to none and still rejects bad text")
    func optionalValues() throws {
        let limit = Option(
            "limit", environment: "TEST_LIMIT", default: nil, parser: .optional(.integer(in: 1...9)),
            help: "An optional limit.")
        let interface = CommandLineInterface(executable: "t", version: "1", summary: "T.", options: [limit])
        func parse(_ arguments: [String]) throws -> Int? {
            guard case .run(let configuration) = try interface.parse(arguments: arguments, environment: [:])
            else { return nil }
            return configuration[limit]
        }
        #expect(try parse([]) == nil)
        #expect(try parse(["--limit", "3"]) == 3)
        #expect(
            throws: ConfigurationError.badValue(
                source: .flag("--limit"), value: "x", expected: "an integer from 1 to 9")
        ) {
            try parse(["--limit=x"])
        }
        #expect(interface.helpText.contains("(default: none; env: TEST_LIMIT)"))
    }

    @Test("a repeated flag and a positional argument are errors")
    func repeatedAndPositional() {
        #expect(throws: ConfigurationError.repeatedFlag("--workers")) {
            try parse(["--workers=1", "--workers", "2"])
        }
        #expect(throws: ConfigurationError.repeatedFlag("--verbose")) {
            try parse(["--verbose", "--verbose"])
        }
        #expect(throws: ConfigurationError.unexpectedArgument("serve")) { try parse(["serve"]) }
        #expect(throws: ConfigurationError.unexpectedArgument("--")) { try parse(["--"]) }
        #expect(throws: ConfigurationError.unknownFlag("-workers", suggestion: "--workers")) {
            try parse(["-workers", "3"])
        }
    }

    @Test("--help lists every option with its default and variable")
    func help() throws {
        let resolution = TestOptions.interface.resolve(
            arguments: ["--workers", "bad", "--help"], environment: [:])
        guard case .exit(0, let text, "") = resolution else {
            Issue.record("expected help, got \(resolution)")
            return
        }
        #expect(text.hasPrefix("Usage: test-service [options]"))
        for fragment in [
            "--endpoint <endpoint>", "default: tcp://127.0.0.1:5555; env: TEST_ENDPOINT",
            "--workers <n>", "default: 2; env: TEST_WORKERS", "--verbose\n",
            "default: false; env: TEST_VERBOSE",
            "default: 24h; env: TEST_TOKEN_EXPIRY", "default: 19MiB; env: TEST_MEMORY",
            "--mode <fast|safe>", "(default: safe)", "--help", "--version", "A service for tests.",
        ] {
            #expect(text.contains(fragment), "\(fragment)")
        }
    }

    @Test("--version prints the version; usage errors exit 64 with the message on stderr")
    func resolution() {
        guard
            case .exit(0, "test-service 1.2.3\n", "") = TestOptions.interface.resolve(
                arguments: ["--version"], environment: [:])
        else {
            Issue.record("expected the version")
            return
        }
        let resolution = TestOptions.interface.resolve(arguments: ["--wrokers", "3"], environment: [:])
        guard case .exit(64, "", let message) = resolution else {
            Issue.record("expected a usage error, got \(resolution)")
            return
        }
        #expect(
            message == "test-service: unknown option '--wrokers'; did you mean '--workers'? (see --help)\n")
    }

    @Test("the standard options read their prefixed variables")
    func standardOptions() throws {
        let standard = StandardOptions(environmentPrefix: "AUTH")
        let interface = CommandLineInterface(
            executable: "auth-service", version: "1", summary: "Auth.", options: standard.all)
        let environment = ["AUTH_LOG_LEVEL": "debug", "AUTH_STATE_DIR": "/tmp/s"]
        guard
            case .run(let configuration) = try interface.parse(
                arguments: ["--log-format=json", "--drain-timeout", "3s"], environment: environment)
        else {
            Issue.record("expected a configuration")
            return
        }
        #expect(configuration[standard.logLevel] == .debug)
        #expect(configuration[standard.logFormat] == .json)
        #expect(configuration[standard.stateDirectory] == "/tmp/s")
        #expect(configuration[standard.drainTimeout] == .seconds(3))
        #expect(interface.helpText.contains("$XDG_STATE_HOME/reactive-login/<service>"))
        #expect(interface.helpText.contains("<trace|debug|info|notice|warning|error>"))
    }
}
