import Contracts
import Foundation
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// The command blocks of README.md and of every markdown file under docs/ and deploy/, as a new
/// user meets them: each runs as printed, from a directory laid out like the repository after
/// `make up` (`.build/release/` holds the executables), in a fresh environment (`env -i`: a temp
/// home, a temp TMPDIR, PATH without the build, `LANG=C.UTF-8`), against the whole stack started by
/// deploy/local/stack.sh with its default state directory under that home. Only the endpoints differ
/// from a user's machine (`ipc://` in a temp directory instead of the fixed tcp ports): the
/// variables that name one point at the test's stack, `GATEWAY_CLI_ENDPOINT` (gateway-cli) and
/// `AUTH_ENDPOINT` (the Python client of docs/PROTOCOL.md). The metrics listeners take free ports,
/// and a block's `127.0.0.1:9560`–`9563` (the stack's documented metrics addresses) are replaced by
/// the test stack's before it runs. Blocks run in file order (README.md,
/// deploy/, docs/, each sorted), every one once, on one stack: a later block sees the accounts an
/// earlier one registered.
///
/// Which fences are blocks:
/// - ```` ```sh ````, ```` ```bash ````, ```` ```shell ````: a bash script, run with `bash -e -o pipefail`;
///   it must exit 0.
/// - ```` ```console ````: a transcript. The `$ ` lines (and the lines that continue one ending in
///   `\`) are the commands, run in one bash without `-e`, standard error into standard output; the
///   other lines are what they print, compared line by line, where `…` stands for any text in a
///   line and a line of only `…` for any number of lines.
/// - ```` ```python ````: a program, run with the fresh shell's `python3`; it must exit 0.
/// - A plain ```` ``` ```` fence is a transcript when its first line starts with `$ `, and a script when
///   it holds commands: split as bash splits them (at newlines, `;`, `|`, `&`, `(`, `)`, inside
///   `$(…)`), each one's program (after any `NAME=value`) is a bash builtin or keyword, an
///   executable of Package.swift, `make`, `swift`, `python3`, a program on the fresh shell's PATH,
///   or a path to an executable in the repository. Any other fence (```` ```swift ````,
///   ```` ```text ````, ```` ```json ````, diagrams, output) is not a block.
///
/// The line before the fence (the last one that is not blank) can change that:
/// - `<!-- illustrative` (e.g. `<!-- illustrative: needs systemd -->`): the block is skipped.
/// - `<!-- long-running` (benchmarks, load tests, builds and test runs, servers in the
///   foreground): the block is not run but checked: `bash -n` parses it, every `make` target it
///   names is a target of the Makefile, and every program it names is a builtin, an executable of
///   this build (also as `.build/<anything>/NAME` or `$VARIABLE/NAME`), a program on PATH (this
///   test's, and the Makefile's fallback for swift, /opt/swift/usr/bin), or, for a relative path, an
///   executable file in the repository. A Python block marked so is only compiled.
///
/// A block that starts a service of its own keeps its state in a `mktemp -d` directory (under the
/// test's TMPDIR): whatever a pid file there names is killed (by pid) after the run, as are the
/// stack's own services.
@Suite(
    "the command blocks of README.md, docs/ and deploy/ run as printed", .timeLimit(.minutes(3)), .serialized)
struct DocumentBlockTests {
    static let blocks = DocumentBlocks.all
    static let built = [
        "gateway", "gateway-cli", "auth-service", "validation-service", "hero-catalog-service",
    ]
    .allSatisfy { FileManager.default.isExecutableFile(atPath: Paths.binaries + "/" + $0) }

    @Test("the fence rules: languages, plain fences of commands, transcripts, markers, indentation")
    func fenceRules() {
        let markdown = """
            ```sh
            echo one
            ```
            <!-- illustrative: not here -->

            ```bash
            echo two
            ```
            ```swift
            print(1)
            ```
            ```
            phone ──┬─ edits
            gateway-cli ──▶ gateway
            ```
            ```
            make up   # starts it
            TOKEN=$(gateway-cli signin \\
              --more)
            ```
            <!-- long-running -->
            ```console
            $ gateway-cli numbers 1 2 3
            6
            ```
            - a list item:

              ```
              $ echo a \\
                b
              a b
              …
              ```
            ```python
            print(2)
            ```
            """
        let known: Set<String> = ["echo", "make", "gateway-cli"]
        let blocks = DocumentBlock.blocks(in: markdown, file: "x.md", isCommand: known.contains)
        #expect(blocks.map(\.line) == [1, 6, 16, 22, 28, 34])
        #expect(blocks.map(\.kind) == [.script, .script, .script, .transcript, .transcript, .python])
        #expect(blocks.map(\.marker) == [.none, .illustrative, .none, .longRunning, .none, .none])
        #expect(blocks[3].commands == "gateway-cli numbers 1 2 3\n")
        #expect(blocks[3].expectedOutput == ["6"])
        #expect(blocks[4].commands == "echo a \\\n  b\n")
        #expect(blocks[4].expectedOutput == ["a b", "…"])
        #expect(blocks[4].description == "x.md:28")
    }

    @Test("a transcript's output: exact lines, … within a line, a line of … for any lines")
    func outputMatching() {
        #expect(DocumentBlock.output(["6"], matches: ["6"]))
        #expect(!DocumentBlock.output(["7"], matches: ["6"]))
        #expect(DocumentBlock.output(["token: abc", "abc", ""], matches: ["token: …", "…"]))
        #expect(DocumentBlock.output(["a", "b", "c", "5 in all"], matches: ["a", "…", "5 in all"]))
        #expect(DocumentBlock.output(["a", "5 in all"], matches: ["a", "…", "5 in all"]))
        #expect(!DocumentBlock.output(["a", "b"], matches: ["a"]))
        #expect(DocumentBlock.output(["x-1-y-2-z"], matches: ["x…y…z"]))
        #expect(!DocumentBlock.output(["xy"], matches: ["xy…y"]))
    }

    @Test("the shell words of a block: programs, make targets, the Makefile's targets")
    func shellWords() {
        let script = """
            export PATH="$PWD/.build/release:$PATH"   # a comment | not a pipe
            bin=$(swift build -c release --show-bin-path); state=$(mktemp -d)
            $bin/AuthBenchmarks --only 'a|b' 2>&1 | grep -v "$(date +%s)" && make test TEST_FILTER=X -j2 up
            for p in a b; do
              INTEGRATION_BIN_DIR=x \\
                swift test --filter `echo y`
            done
            echo $((1 + (2 * 3))) ${HOME}
            """
        let programs = ShellWords.simpleCommands(script).compactMap { ShellWords.program(of: $0)?.name }
        #expect(
            programs == [
                "export", "swift", "mktemp", "$bin/AuthBenchmarks", "date", "grep", "make", "echo", "swift",
                "echo",
            ])
        let make = ShellWords.simpleCommands(script).compactMap(ShellWords.program).first {
            $0.name == "make"
        }
        #expect(make.map { ShellWords.makeTargets($0.arguments) } == ["test", "up"])
        let targets = ShellWords.targets(
            ofMakefile: "A := 1\nB ?= x:y\n.PHONY: up\nup down: deps\n\techo a:b\n")
        #expect(targets == [".PHONY", "up", "down"])
    }

    @Test("every file's blocks are found; README.md's and PROTOCOL.md's run; nothing a fresh shell lacks")
    func blocksAreFound() {
        let readme = Self.blocks.filter { $0.file == "README.md" }
        #expect(readme.count >= 3)
        #expect(readme.filter { $0.marker == .none }.count >= 2)
        #expect(
            Self.blocks.contains { $0.file == "docs/PROTOCOL.md" && $0.kind == .python && $0.marker == .none }
        )
        #expect(Self.blocks.contains { $0.file == "docs/gateway/cli.md" && $0.kind == .transcript })
        #expect(Self.blocks.filter { $0.marker == .longRunning }.count >= 10)
        for file in ["deploy/README.md", "docs/services/integration-tests.md", "docs/security/throttling.md"]
        {
            #expect(Self.blocks.contains { $0.file == file }, "no blocks found in \(file)")
        }
        for block in Self.blocks where block.marker == .none && block.kind != .python {
            // What a fresh shell does not have: a `~` inside double quotes is not expanded.
            #expect(!block.commands.contains("\"~"), "\(block): ~ inside double quotes")
            #expect(!block.commands.isEmpty, "\(block): no commands")
        }
    }

    @Test(
        "each long-running block parses, and the make targets and programs it names exist",
        .enabled(if: built, "the service and client executables are not part of this build"))
    func longRunningBlocksAreChecked() async throws {
        let scratch = try TemporaryDirectory(prefix: "docblock")
        defer { scratch.remove() }
        let targets = ShellWords.targets(ofMakefile: contents(Paths.inRepository("Makefile")))
        // The check itself: what exists passes, what does not is named.
        #expect(["bench-auth", "loadtest", "test", "up"].allSatisfy(targets.contains))
        let present = [
            "swift", "grep", "export", "$client", "auth-service", "$bin/AuthBenchmarks",
            ".build/release/gateway-cli", "deploy/local/stack.sh",
        ]
        for name in present {
            #expect(DocumentBlocks.missing(program: name) == nil, "\(name)")
        }
        for absent in [
            "no-such-program", "$bin/NoSuchBenchmarks", ".build/release/nothing", "deploy/nothing.sh",
        ] {
            #expect(DocumentBlocks.missing(program: absent) != nil, "\(absent)")
        }
        for (index, block) in Self.blocks.enumerated() where block.marker == .longRunning {
            let file = scratch.file("block\(index)")
            try block.commands.write(toFile: file, atomically: true, encoding: .utf8)
            if block.kind == .python {
                let compiled = try await runCommand(
                    "/usr/bin/env", ["PATH=" + DocumentBlocks.freshPath, "python3", "-m", "py_compile", file])
                #expect(compiled.status == 0, "\(block) does not compile:\n\(compiled.error)")
                continue
            }
            let parsed = try await runCommand("/bin/bash", ["-n", file])
            #expect(parsed.status == 0, "\(block) does not parse:\n\(block.commands)\n\(parsed.error)")
            for words in ShellWords.simpleCommands(block.commands) {
                guard let program = ShellWords.program(of: words) else { continue }
                if let problem = DocumentBlocks.missing(program: program.name) {
                    Issue.record("\(block): \(problem)")
                }
                if program.name == "make" {
                    for target in ShellWords.makeTargets(program.arguments) where !targets.contains(target) {
                        Issue.record("\(block): make \(target): the Makefile has no target \(target)")
                    }
                }
            }
        }
    }

    @Test(
        "after stack.sh up, each block runs as printed in a fresh shell with the stack's default state directory",
        .enabled(if: built, "the service and client executables are not part of this build"))
    func blocksRunAgainstTheStack() async throws {
        let root = try TemporaryDirectory(prefix: "docblock")
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
            stack["STACK_\(service.uppercased())_METRICS"] = "127.0.0.1:0"
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
        // Where each metrics listener is, from `status` (`<service> ready … http://127.0.0.1:N/metrics`),
        // in place of the documented address.
        let documented = ["gateway": 9560, "validation": 9561, "auth": 9562, "heroes": 9563]
        var addresses: [(documented: String, actual: String)] = []
        let status = try await runCommand(script, ["status"], environment: stack)
        for line in status.output.split(separator: "\n") {
            let words = line.split(separator: " ").map(String.init)
            guard let service = words.first, let port = documented[service], let url = words.last,
                url.hasPrefix("http://127.0.0.1:"), url.hasSuffix("/metrics")
            else { continue }
            let actual = url.dropFirst("http://".count).dropLast("/metrics".count)
            addresses.append(("127.0.0.1:\(port)", String(actual)))
        }
        try #require(
            addresses.count == services.count, "no metrics address for each service in:\n\(status.output)")

        // A fresh login shell's environment and nothing else: no PATH to the build, the temp home,
        // English; the endpoints of the test's stack.
        let shell: [String: String] = [
            "HOME": home, "TMPDIR": scratch, "PATH": DocumentBlocks.freshPath, "LANG": "C.UTF-8",
            "GATEWAY_CLI_ENDPOINT": "ipc://\(root.path)/gateway.sock",
            "AUTH_ENDPOINT": "ipc://\(root.path)/auth.sock",
        ]
        let environment = shell.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }
        for (index, original) in Self.blocks.enumerated() where original.marker == .none {
            var block = original
            for address in addresses { block = block.replacing(address.documented, with: address.actual) }
            let file = root.file("block\(index)")
            func runFresh(_ command: String) async throws -> CommandResult {
                try await runCommand(
                    "/usr/bin/env",
                    ["-i"] + environment + [
                        "/bin/bash", "-c", #"cd "$1" && "# + command, "block", repository, file,
                    ],
                    timeLimit: .seconds(60))
            }
            let run: CommandResult
            switch block.kind {
            case .script:
                try block.commands.write(toFile: file, atomically: true, encoding: .utf8)
                run = try await runFresh(#"exec /bin/bash -e -o pipefail "$2""#)
            case .transcript:
                try ("exec 2>&1\n" + block.commands).write(toFile: file, atomically: true, encoding: .utf8)
                run = try await runFresh(#"exec /bin/bash "$2""#)
            case .python:
                try block.commands.write(toFile: file, atomically: true, encoding: .utf8)
                run = try await runFresh(#"exec python3 "$2""#)
            }
            let report = "\(block.commands)\n--- stdout\n\(run.output)--- stderr\n\(run.error)"
            if block.kind == .transcript {
                let printed = run.output.components(separatedBy: "\n")
                let shown = block.expectedOutput.joined(separator: "\n")
                #expect(
                    DocumentBlock.output(printed, matches: block.expectedOutput),
                    "\(block) printed other lines than the document shows:\n\(report)--- the document\n\(shown)"
                )
            } else {
                #expect(run.status == 0, "\(block) exited \(run.status):\n\(report)")
            }
            guard block.file == "README.md" else { continue }
            if block.commands.contains("gateway-cli numbers 1 2 3") {
                #expect(run.output.hasPrefix("6\n"), "\(block): \(run.output)")
                #expect(run.output.contains(#""result":"succeeded""#), "\(block): \(run.output)")
            }
            if block.commands.contains("auth-service") && block.commands.contains("--check") {
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
