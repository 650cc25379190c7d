import Contracts
import Dispatch
import Foundation
import GatewayClient
import Reactive
import RemoteProtocol
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// What `main` runs: parse, then help, the interactive client or a script.
enum GatewayCLI {
    /// Runs the command line `arguments` and returns the exit code.
    static func run(_ arguments: [String], environment: [String: String]) -> Int32 {
        let invocation: CLIInvocation
        do {
            invocation = try CLIInvocation.parse(arguments, environment: environment)
        } catch {
            writeStandardError("\(error)\n")
            return ExitCode.usage.rawValue
        }
        switch invocation.command {
        case .help(let subcommand):
            writeStandardOutput(CLIInvocation.help(for: subcommand))
            return ExitCode.success.rawValue
        case .version:
            writeStandardOutput("gateway-cli \(CLIInvocation.version)\n")
            return ExitCode.success.rawValue
        default:
            break
        }
        do {
            let curve = try GatewayKeys.curve(for: invocation, environment: environment)
            let interruption = invocation.command == .interactive ? nil : Interruption()
            // Without a state directory there are no device tokens to keep: logins still work.
            let deviceTokens = try? DeviceTokenStore.standard(environment: environment)
            let script = try makeScript(invocation, deviceTokens: deviceTokens)
            let connection: GatewayConnection
            do {
                connection = try GatewayConnection(
                    configuration: .init(
                        endpoint: invocation.endpoint, curve: curve,
                        deadline: invocation.timeout,
                        channelDeadline: script == nil ? .seconds(86_400) : invocation.timeout))
            } catch {
                throw CLIUsageError("cannot connect to \(invocation.endpoint): \(error)")
            }
            defer { stop(connection) }
            guard let script else {
                let open = deviceTokens.map { $0.remembering(connection.openFlow) } ?? connection.openFlow
                return runInteractive(
                    locale: invocation.locale, endpoint: invocation.endpoint, connection: connection,
                    open: invocation.trace ? ScriptTracing().stamping(open) : open, tracing: invocation.trace)
            }
            return run(
                script, on: connection, invocation, interruption: interruption, deviceTokens: deviceTokens
            )
            .rawValue
        } catch {
            writeStandardError("\(error)\n")
            return ExitCode.usage.rawValue
        }
    }

    /// The script for a subcommand (reading the password first), or nil for interactive mode; a
    /// login or sign-in presents the device token `deviceTokens` keeps for its account.
    static func makeScript(_ invocation: CLIInvocation, deviceTokens: DeviceTokenStore?) throws(CLIUsageError)
        -> (any FlowScript)?
    {
        let locale = invocation.locale
        let prompts = invocation.command.passwordPrompts(in: locale)
        switch invocation.command {
        case .login(let phone):
            let password = try PasswordInput.read(prompts: prompts)
            guard let first = password.first else { throw CLIUsageError("no password on standard input") }
            return LoginScript(
                phone: phone, password: first, locale: locale, deviceToken: deviceTokens?.token(for: phone))
        case .register(let username):
            let passwords = try PasswordInput.read(prompts: prompts)
            guard let first = passwords.first else { throw CLIUsageError("no password on standard input") }
            return RegisterScript(
                username: username, password: first, repeatPassword: passwords.dropFirst().first ?? first,
                locale: locale)
        case .signin(let username):
            let password = try PasswordInput.read(prompts: prompts)
            guard let first = password.first else { throw CLIUsageError("no password on standard input") }
            return SigninScript(
                username: username, password: first, locale: locale,
                deviceToken: deviceTokens?.token(for: username))
        case .heroes(let query, let page, let token):
            return HeroesScript(token: token, query: query, page: page, locale: locale)
        case .numbers(let a, let b, let c):
            return NumbersScript(a: a, b: b, c: c, locale: locale)
        case .interactive, .help, .version:
            return nil
        }
    }

    /// Runs `script` to its end, printing as it goes, and returns the exit code. A device token the
    /// result brings is kept in `deviceTokens`.
    static func run(
        _ script: any FlowScript, on connection: GatewayConnection, _ invocation: CLIInvocation,
        interruption: Interruption?, deviceTokens: DeviceTokenStore?
    ) -> ExitCode {
        let scheduler = SerialScheduler(name: "gateway-cli.script")
        defer { scheduler.dispose() }
        let outcome = Mutex<ExitCode?>(nil)
        let finished = DispatchSemaphore(value: 0)
        let json = invocation.json
        // Whether the channel itself failed as unavailable (no connection to the gateway, a lost one,
        // a gateway shutting down), rather than a service behind the gateway (`network.error`).
        let transportFailed = Atomic<Bool>(false)
        let open: OpenFlow = { flow, parameters, inputs in
            connection.open(flow, parameters, inputs).do(onError: { error in
                if (error as? RemoteError)?.code == .unavailable {
                    transportFailed.store(true, ordering: .relaxed)
                }
            })
        }
        // `--json --trace`: output lines wait (at most 2 s) for the trace of the input that caused
        // them, so that each carries it.
        let tracesLines = json && invocation.trace
        let traced = Mutex(TracedLines())
        let expiry = SerialDisposable()
        @Sendable func print(_ lines: [String]) {
            for line in lines { writeStandardOutput(line + "\n") }
        }
        @Sendable func printTraced(_ update: (inout TracedLines, UInt64) -> [String]) {
            guard tracesLines else { return }
            // Printed under the lock: a timer's lines and the run's keep their order.
            let deadline = traced.withLock { lines in
                let now = DispatchTime.now().uptimeNanoseconds
                print(update(&lines, now))
                return lines.nextDeadline.map { $0 > now ? $0 - now : 0 }
            }
            guard let deadline else { return }
            expiry.disposable = scheduler.scheduleRelative(
                (), dueTime: .microseconds(Int(min(deadline, 60_000_000_000) / 1_000) + 1)
            ) { _ in
                printTraced { lines, now in lines.expire(at: now) }
                return Disposables.create()
            }
        }
        let subscription = ScriptRunner.run(
            script, open: open, timeout: invocation.timeout.dispatchInterval, scheduler: scheduler,
            tracing: invocation.trace ? ScriptTracing() : nil
        )
        .subscribe(
            onNext: { event in
                switch event {
                case .output(let output):
                    if tracesLines {
                        printTraced { lines, now in lines.output(output, at: now) }
                    } else if json {
                        writeStandardOutput(ScriptPrinter.jsonLine(output) + "\n")
                    }
                case .trace(let trace):
                    if tracesLines {
                        printTraced { lines, now in lines.trace(trace, at: now) }
                    } else if json {
                        writeStandardOutput(ScriptPrinter.jsonLine(trace) + "\n")
                    } else {
                        let lines = ScriptPrinter.waterfall(trace, width: terminalWidth(of: 2))
                        writeStandardError(lines.joined(separator: "\n") + "\n")
                    }
                case .finished(let result):
                    if let issued = result.deviceToken, let deviceTokens {
                        do { try deviceTokens.save(issued) } catch {
                            writeStandardError("gateway-cli: cannot keep the device token: \(error)\n")
                        }
                    }
                    printTraced { lines, _ in lines.flush() }
                    if json {
                        writeStandardOutput(ScriptPrinter.jsonLine(result) + "\n")
                    } else {
                        let text = ScriptPrinter.textLines(result).joined(separator: "\n") + "\n"
                        if result.outcome == .succeeded {
                            writeStandardOutput(text)
                        } else {
                            writeStandardError(text)
                        }
                    }
                    outcome.withLock { $0 = result.exitCode }
                    finished.signal()
                }
            },
            onError: { error in
                var failure = ScriptFailure(wrapping: error)
                if failure.kind == .timedOut
                    || (failure.kind == .unreachable && transportFailed.load(ordering: .relaxed))
                {
                    failure.message +=
                        " (is the gateway running at \(invocation.endpoint)\(invocation.curve ? ", with this key" : "")?)"
                }
                printTraced { lines, _ in lines.flush() }
                if json {
                    writeStandardOutput(ScriptPrinter.jsonLine(failure) + "\n")
                } else {
                    writeStandardError("gateway-cli: \(failure.message)\n")
                }
                outcome.withLock { $0 = failure.exitCode }
                finished.signal()
            })
        interruption?.onSignal {
            outcome.withLock { $0 = $0 ?? .interrupted }
            finished.signal()
        }
        finished.wait()
        subscription.dispose()
        expiry.dispose()
        if outcome.withLock({ $0 }) == .interrupted { writeStandardError("gateway-cli: interrupted\n") }
        return outcome.withLock { $0 } ?? .protocolError
    }

    /// Stops the connection, waiting at most a second (its `CANCEL`s are then on their way).
    static func stop(_ connection: GatewayConnection) {
        let stopped = DispatchSemaphore(value: 0)
        Task.detached {
            await connection.stop()
            stopped.signal()
        }
        _ = stopped.wait(timeout: .now() + 1)
    }
}

/// The width of the terminal on `descriptor`, else `COLUMNS`, else 80.
func terminalWidth(of descriptor: Int32) -> Int {
    var size = winsize()
    if ioctl(descriptor, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 { return Int(size.ws_col) }
    if let columns = ProcessInfo.processInfo.environment["COLUMNS"].flatMap(Int.init), columns > 0 {
        return columns
    }
    return 80
}

extension Duration {
    /// The duration in milliseconds, as a dispatch interval.
    var dispatchInterval: DispatchTimeInterval {
        .milliseconds(Int(components.seconds) * 1000 + Int(components.attoseconds / 1_000_000_000_000_000))
    }
}

/// Writes `text` to standard output, unbuffered (so a pipe sees each JSON line at once).
func writeStandardOutput(_ text: String) { writeAll(1, text) }

/// Writes `text` to standard error, unbuffered.
func writeStandardError(_ text: String) { writeAll(2, text) }

/// Writes all of `text` to `descriptor`, retrying after signals; gives up on other errors (a closed
/// pipe has no reader left to tell).
private func writeAll(_ descriptor: Int32, _ text: String) {
    let bytes = Array(text.utf8)
    var offset = 0
    while offset < bytes.count {
        let written = bytes[offset...].withUnsafeBytes { buffer in
            write(descriptor, buffer.baseAddress, buffer.count)
        }
        if written > 0 {
            offset += written
        } else if written < 0, errno == EINTR {
            continue
        } else {
            return
        }
    }
}
