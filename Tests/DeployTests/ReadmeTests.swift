import Contracts
import Foundation
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// The shell blocks of README.md, as a new user meets them: each runs as printed, with bash,
/// from a directory laid out like the repository after `make up` (`.build/release/` holds the
/// executables), in a fresh environment whose home is a temp directory, against the whole stack
/// started by deploy/local/stack.sh with its default state directory under that home. Only the
/// endpoints differ from a user's machine (`ipc://` in the temp directory instead of the fixed tcp
/// ports): `gateway-cli` gets the gateway's through `GATEWAY_CLI_ENDPOINT`. A block whose fence
/// follows a line starting `<!-- illustrative` is skipped on purpose.
struct ReadmeBlock: Sendable, CustomStringConvertible {
    /// The line of the opening fence (1-based).
    let line: Int
    /// The commands.
    let text: String
    /// Marked illustrative: not run.
    let illustrative: Bool

    var description: String { "README.md:\(line)" }

    /// The ```sh blocks of `markdown`.
    static func shellBlocks(of markdown: String) -> [ReadmeBlock] {
        var blocks: [ReadmeBlock] = []
        var current: (line: Int, lines: [String], illustrative: Bool)?
        var previous = ""
        for (index, line) in markdown.components(separatedBy: "\n").enumerated() {
            if var open = current {
                if line.hasPrefix("```") {
                    blocks.append(
                        ReadmeBlock(
                            line: open.line, text: open.lines.joined(separator: "\n") + "\n",
                            illustrative: open.illustrative))
                    current = nil
                } else {
                    open.lines.append(line)
                    current = open
                }
            } else if line == "```sh" || line == "```bash" {
                current = (index + 1, [], previous.hasPrefix("<!-- illustrative"))
            }
            if !line.trimmingCharacters(in: .whitespaces).isEmpty { previous = line }
        }
        return blocks
    }
}

@Suite("README.md's shell blocks run as printed", .timeLimit(.minutes(3)), .serialized)
struct ReadmeTests {
    static let blocks = ReadmeBlock.shellBlocks(of: contents(Paths.inRepository("README.md")))
    static let built = [
        "gateway", "gateway-cli", "auth-service", "validation-service", "hero-catalog-service",
    ]
    .allSatisfy { FileManager.default.isExecutableFile(atPath: Paths.binaries + "/" + $0) }

    @Test("every shell block is either run here or marked illustrative, and most are run")
    func blocksAreFound() {
        #expect(Self.blocks.count >= 3)
        #expect(Self.blocks.filter { !$0.illustrative }.count >= 2)
        for block in Self.blocks where !block.illustrative {
            // What a fresh shell does not have: a `~` inside double quotes is not expanded.
            #expect(!block.text.contains("\"~"), "\(block): ~ inside double quotes")
        }
    }

    @Test(
        "after stack.sh up, each block exits 0 in a fresh shell with the stack's default state directory",
        .enabled(if: built, "the service and client executables are not part of this build"))
    func blocksRunAgainstTheStack() async throws {
        let root = try TemporaryDirectory(prefix: "readme")
        let home = root.file("home")
        let state = home + "/.local/state"
        let repository = root.file("repository")
        let scratch = root.file("tmp")
        for directory in [state, repository + "/.build", scratch] {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        }
        try FileManager.default.createSymbolicLink(
            atPath: repository + "/.build/release", withDestinationPath: Paths.binaries)
        let stackDirectory = state + "/reactive-login/stack"
        let services = ["auth", "validation", "heroes", "gateway"]
        var stack: [String: String] = [
            "STACK_DIR": stackDirectory, "BIN_DIR": Paths.binaries,
            "STACK_SERVICES": services.joined(separator: " "),
            "STACK_AUTH_ARGS": "--hash-cost test", "STACK_WAIT_SECONDS": "20", "STACK_STOP_SECONDS": "10",
        ]
        for service in services {
            stack["STACK_\(service.uppercased())_ENDPOINT"] = "ipc://\(root.path)/\(service).sock"
        }
        defer {
            // Whatever is left after a failed expectation: the stack's pids, and any service a
            // block started in its own temp directory (its pid file), by pid.
            for service in services {
                killIfAlive(contents(stackDirectory + "/run/\(service).pid"))
            }
            for directory in (try? FileManager.default.contentsOfDirectory(atPath: scratch)) ?? [] {
                let path = "\(scratch)/\(directory)"
                for file in (try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []
                where file.hasSuffix(".pid") {
                    killIfAlive(contents("\(path)/\(file)"))
                }
            }
            root.remove()
        }
        let script = Paths.deploy + "/local/stack.sh"
        let up = try await runCommand(script, ["up"], environment: stack)
        try #require(up.status == 0, "stack.sh up failed: \(up.output)\(up.error)")

        // A fresh login shell's environment: no PATH to the build, the temp home, English.
        let shell: [String: String] = [
            "HOME": home, "XDG_STATE_HOME": "", "TMPDIR": scratch, "PATH": "/usr/local/bin:/usr/bin:/bin",
            "LANG": "C.UTF-8", "LC_ALL": "", "LC_MESSAGES": "", "GATEWAY_CLI_LANG": "",
            "GATEWAY_CLI_ENDPOINT": "ipc://\(root.path)/gateway.sock", "GATEWAY_CLI_SERVER_KEY": "",
        ]
        for (index, block) in Self.blocks.enumerated() where !block.illustrative {
            let file = root.file("block\(index).sh")
            try block.text.write(toFile: file, atomically: true, encoding: .utf8)
            let run = try await runCommand(
                "/bin/bash",
                ["-c", #"cd "$1" && exec /bin/bash -e -o pipefail "$2""#, "readme", repository, file],
                environment: shell, timeLimit: .seconds(60))
            #expect(
                run.status == 0,
                "\(block) exited \(run.status):\n\(block.text)\n--- stdout\n\(run.output)--- stderr\n\(run.error)"
            )
            if block.text.contains("gateway-cli numbers 1 2 3") {
                #expect(run.output.hasPrefix("6\n"), "\(block): \(run.output)")
                #expect(run.output.contains(#""result":"succeeded""#), "\(block): \(run.output)")
            }
            if block.text.contains("auth-service") && block.text.contains("--check") {
                #expect(
                    run.output.contains("auth \(ProjectVersion.current) at ipc://"), "\(block): \(run.output)"
                )
                #expect(run.output.contains(": ready"), "\(block): \(run.output)")
            }
        }

        // Every service reports the project's one version in sys.health.
        let binaries = [
            "auth": "auth-service", "validation": "validation-service", "heroes": "hero-catalog-service",
            "gateway": "gateway",
        ]
        for service in services {
            let check = try await runCommand(
                Paths.binaries + "/" + binaries[service, default: service],
                [
                    "--check", "--endpoint", "ipc://\(root.path)/\(service).sock", "--state-dir",
                    stackDirectory + "/" + service,
                ])
            #expect(check.output.hasPrefix("\(service) \(ProjectVersion.current) at "), "\(check.output)")
        }
        let down = try await runCommand(script, ["down"], environment: stack)
        #expect(down.status == 0, "\(down.output)\(down.error)")
    }
}

@Suite("one version for every executable", .timeLimit(.minutes(1)))
struct VersionTests {
    static let executables = [
        "auth-service", "validation-service", "hero-catalog-service", "gateway", "gateway-cli",
        "auth-loadtest",
    ]

    @Test(
        "--version prints the project's version, ProjectVersion.current",
        .enabled(
            if: executables.allSatisfy {
                FileManager.default.isExecutableFile(atPath: Paths.binaries + "/" + $0)
            },
            "the executables are not part of this build"))
    func everyExecutable() async throws {
        for name in Self.executables {
            let run = try await runCommand(Paths.binaries + "/" + name, ["--version"])
            #expect(run.status == 0, "\(name): \(run.error)")
            #expect(run.output == "\(name) \(ProjectVersion.current)\n", "\(name) printed \(run.output)")
        }
    }
}

/// SIGKILL to the pid written in `text` (a pid file's contents), if that process still runs.
private func killIfAlive(_ text: String) {
    guard let pid = Int32(text.trimmingCharacters(in: .whitespacesAndNewlines)), pid > 0, isAlive(pid) else {
        return
    }
    kill(pid, SIGKILL)
}
