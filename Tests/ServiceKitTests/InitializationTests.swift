import Foundation
import ProcessSupport
import RemoteStreams
import ServiceKit
import Testing
import ZeroMQ

#if canImport(Glibc)
    import Glibc
#endif

@Suite("--init: keys and allow-list prepared before the first start", .timeLimit(.minutes(1)))
struct InitializationTests {
    @Test("a fresh directory gets both key pairs and an allow-list; the printed keys are the files'")
    func fresh() throws {
        try withTemporaryDirectory { root in
            let directory = try StateDirectory(creating: "\(root)/auth")
            let state = try directory.initialize()
            #expect(state.path == "\(root)/auth")
            #expect(mode(directory.path) == 0o700)
            #expect(mode(directory.file("curve.key")) == 0o600)
            #expect(mode(directory.file("client.key")) == 0o600)
            #expect(mode(directory.file("allowed_clients")) == 0o600)
            let serverPublic = try read(directory.file("curve.pub")).trimmingCharacters(in: .newlines)
            let clientPublic = try read(directory.file("client.pub")).trimmingCharacters(in: .newlines)
            #expect(state.serverKey == serverPublic)
            #expect(state.clientKey == clientPublic)
            #expect(state.serverKey != state.clientKey)
            #expect(state.line == "server_key=\(serverPublic) client_key=\(clientPublic)")
            #expect(state.line.split(separator: " ").count == 2)
            #expect(try Z85.decode(state.serverKey).count == 32)
            // The pair on disk is a real pair: the secret key derives the printed public key.
            let pair = try CurveKeyFiles.serverKeys(in: directory)
            #expect(try Z85.encode(pair.publicKey) == state.serverKey)
        }
    }

    @Test("running it again keeps the keys and the allow-list as they are")
    func idempotent() throws {
        try withTemporaryDirectory { root in
            let directory = try StateDirectory(creating: root)
            let first = try directory.initialize()
            let listed = try Z85.encode(try CurveKeyPair.generate().publicKey)
            let allowList = "# clients\n\(listed) gateway\n"
            try write(allowList, to: directory.file("allowed_clients"))
            let second = try directory.initialize()
            #expect(second == first)
            #expect(try read(directory.file("allowed_clients")) == allowList)
        }
    }

    @Test("a secret key readable by others or a malformed allow-list fails, naming the file")
    func badFiles() throws {
        try withTemporaryDirectory { root in
            let directory = try StateDirectory(creating: root)
            _ = try directory.initialize()
            chmod(directory.file("client.key"), 0o644)
            #expect { try directory.initialize() } throws: { error in
                let error = error as? StateError
                return error?.code == .keyFile && error?.path == directory.file("client.key")
            }
            chmod(directory.file("client.key"), 0o600)
            try write("not a key\n", to: directory.file("allowed_clients"))
            #expect { try directory.initialize() } throws: { error in
                (error as? StateError)?.code == .allowList
            }
        }
    }

    @Test("--init is a standard switch: off by default, on when given, listed in --help")
    func option() throws {
        let standard = StandardOptions(environmentPrefix: "DEMO")
        let interface = CommandLineInterface(
            executable: "demo-service", version: "1.0.0", summary: "A demo.", options: standard.all)
        guard case .run(let plain) = try interface.parse(arguments: [], environment: [:]),
            case .run(let initializing) = try interface.parse(arguments: ["--init"], environment: [:])
        else {
            Issue.record("expected run outcomes")
            return
        }
        #expect(plain[standard.initialize] == false)
        #expect(initializing[standard.initialize] == true)
        #expect(interface.helpText.contains("  --init\n"))
        // No environment variable: a deployment's environment must not turn every start into --init.
        #expect(standard.initialize.environmentVariable == nil)
    }
}
