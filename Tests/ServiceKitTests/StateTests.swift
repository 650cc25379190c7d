import Foundation
import ProcessSupport
import RemoteStreams
import ServiceKit
import Testing
import ZeroMQ

#if canImport(Glibc)
    import Glibc
#endif

@Suite("State directory, pid file, keys", .timeLimit(.minutes(1)))
struct StateTests {
    @Test("the state directory resolves override, XDG_STATE_HOME, HOME, then ./.state")
    func resolution() {
        func resolve(_ override: String?, _ environment: [String: String]) -> String {
            StateDirectory.resolve(service: "auth", override: override, environment: environment)
        }
        let both = ["XDG_STATE_HOME": "/x/state", "HOME": "/home/u"]
        #expect(resolve("/srv/auth", both) == "/srv/auth")
        #expect(resolve(nil, both) == "/x/state/reactive-login/auth")
        #expect(resolve("", both) == "/x/state/reactive-login/auth")
        #expect(
            resolve(nil, ["XDG_STATE_HOME": "relative", "HOME": "/home/u"])
                == "/home/u/.local/state/reactive-login/auth")
        #expect(resolve(nil, ["HOME": "/home/u"]) == "/home/u/.local/state/reactive-login/auth")
        #expect(resolve(nil, ["HOME": ""]) == "./.state/auth")
        #expect(resolve(nil, [:]) == "./.state/auth")
    }

    @Test("the state directory and its parents are created with mode 0700")
    func creation() throws {
        try withTemporaryDirectory { root in
            let directory = try StateDirectory.prepare(
                service: "auth", override: nil, environment: ["XDG_STATE_HOME": root])
            #expect(directory.path == "\(root)/reactive-login/auth")
            #expect(mode(directory.path) == 0o700)
            #expect(mode("\(root)/reactive-login") == 0o700)
            chmod(directory.path, 0o755)
            #expect(try StateDirectory(creating: directory.path).path == directory.path)
            #expect(mode(directory.path) == 0o700)
            try write("x", to: "\(root)/file")
            #expect { try StateDirectory(creating: "\(root)/file") } throws: { error in
                (error as? StateError)?.code == .stateDirectory
            }
        }
    }

    @Test("a pid file is written, refuses a live pid, replaces a stale one, and is removed on release")
    func pidFile() throws {
        try withTemporaryDirectory { root in
            let directory = try StateDirectory(creating: root)
            let path = "\(root)/auth.pid"
            let pidFile = try PidFile.acquire(in: directory, service: "auth")
            #expect(try read(path) == "\(getpid())\n")
            #expect(pidFile.pid == getpid())
            pidFile.release()
            #expect(!FileManager.default.fileExists(atPath: path))

            // pid 1 always exists: another instance is "running".
            try write("1\n", to: path)
            #expect {
                try PidFile.acquire(in: directory, service: "auth")
            } throws: { error in
                let error = error as? StateError
                return error?.code == .alreadyRunning && error?.message.contains("pid 1") == true
            }

            // A process that has exited leaves a stale file, which is replaced.
            try write("\(try exitedProcessID())\n", to: path)
            let replaced = try PidFile.acquire(in: directory, service: "auth")
            #expect(try read(path) == "\(getpid())\n")
            replaced.release()

            // Garbage is stale too.
            try write("not a pid", to: path)
            try PidFile.acquire(in: directory, service: "auth").release()
            #expect(!FileManager.default.fileExists(atPath: path))
        }
    }

    @Test("a key pair is generated on first start with 0600/0644 and reloaded after")
    func keyGeneration() throws {
        try withTemporaryDirectory { root in
            let directory = try StateDirectory(creating: root)
            let first = try CurveKeyFiles.serverKeys(in: directory)
            #expect(mode("\(root)/curve.key") == 0o600)
            #expect(mode("\(root)/curve.pub") == 0o644)
            #expect(try read("\(root)/curve.pub") == (try first.publicKeyZ85) + "\n")
            #expect(try read("\(root)/curve.key") == (try first.secretKeyZ85) + "\n")
            #expect(try CurveKeyFiles.serverKeys(in: directory) == first)
            let client = try CurveKeyFiles.clientKeys(in: directory)
            #expect(client != first)
            #expect(try CurveKeyFiles.clientKeys(in: directory) == client)
            #expect(mode("\(root)/client.key") == 0o600)

            // A missing public file is rewritten from the secret.
            try FileManager.default.removeItem(atPath: "\(root)/curve.pub")
            #expect(try CurveKeyFiles.serverKeys(in: directory) == first)
            #expect(try read("\(root)/curve.pub") == (try first.publicKeyZ85) + "\n")
        }
    }

    @Test("bad key files are reported by name")
    func badKeyFiles() throws {
        try withTemporaryDirectory { root in
            let directory = try StateDirectory(creating: root)
            let pair = try CurveKeyFiles.serverKeys(in: directory)
            func failure() -> StateError? {
                do {
                    _ = try CurveKeyFiles.serverKeys(in: directory)
                    return nil
                } catch { return error }
            }
            try write(try CurveKeyPair.generate().publicKeyZ85, to: "\(root)/curve.pub", permissions: 0o644)
            #expect(failure()?.path == "\(root)/curve.pub")
            #expect(failure()?.message.contains("does not match") == true)

            try write(try pair.publicKeyZ85, to: "\(root)/curve.pub", permissions: 0o644)
            try write("too short", to: "\(root)/curve.key")
            #expect(failure()?.path == "\(root)/curve.key")
            #expect(failure()?.code == .keyFile)

            try write(try pair.secretKeyZ85, to: "\(root)/curve.key", permissions: 0o644)
            #expect(failure()?.message.contains("chmod 600") == true)
            chmod("\(root)/curve.key", 0o600)
            #expect(try CurveKeyFiles.serverKeys(in: directory) == pair)
        }
    }

    @Test("the allow-list skips comments and blanks, keeps labels and reports bad lines by number")
    func allowList() throws {
        let first = try CurveKeyPair.generate().publicKeyZ85
        let second = try CurveKeyPair.generate().publicKeyZ85
        let text = "# clients\n\n  \(first)  gateway\n#\(second)\n\(second)\n"
        let list = try AllowList.parse(text, path: "allowed_clients")
        #expect(list.keys == [try Z85.decode(first), try Z85.decode(second)])
        #expect(list.contains(try Z85.decode(first)))

        #expect {
            try AllowList.parse("\(first)\nnot-a-key\n\n\(first.dropLast())\n", path: "/s/allowed_clients")
        } throws: { error in
            let error = error as? StateError
            return error?.code == .allowList && error?.path == "/s/allowed_clients"
                && error?.message.contains("line 2") == true && error?.message.contains("line 4") == true
                && error?.message.contains("line 1") == false
        }
    }

    @Test("a missing allow-list is created empty")
    func allowListCreation() throws {
        try withTemporaryDirectory { root in
            let directory = try StateDirectory(creating: root)
            #expect(try AllowList.loadOrCreate(in: directory).keys.isEmpty)
            #expect(mode("\(root)/allowed_clients") == 0o600)
            let key = try CurveKeyPair.generate().publicKeyZ85
            try write(try read("\(root)/allowed_clients") + key + "\n", to: "\(root)/allowed_clients")
            #expect(try AllowList.loadOrCreate(in: directory).keys == [try Z85.decode(key)])
        }
    }
}

/// The pid of a child process that has already exited and been reaped.
private func exitedProcessID() throws -> Int32 {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/bin/true")
    try process.run()
    process.waitUntilExit()
    return process.processIdentifier
}
