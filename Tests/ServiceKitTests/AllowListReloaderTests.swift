import Foundation
import ProcessSupport
import RemoteStreams
import ServiceKit
import Synchronization
import Testing
import ZeroMQ

@Suite("Allow-list reload", .timeLimit(.minutes(1)))
struct AllowListReloaderTests {
    /// The lines a logger wrote.
    private final class Lines: Sendable {
        private let lines = Mutex<[String]>([])
        func append(_ line: String) { lines.withLock { $0.append(line) } }
        func withLock<T>(_ body: ([String]) -> T) -> T { lines.withLock { body($0) } }
    }

    /// A logger whose lines are kept.
    private static func recordingLogger() -> (Logger, Lines) {
        let lines = Lines()
        let logger = Logger(service: "test", sink: LogSink { line in lines.append(line) })
        return (logger, lines)
    }

    @Test("a reload admits added keys, revokes removed ones, keeps the service's own key, and logs it")
    func reloadReplacesTheList() throws {
        try withTemporaryDirectory { root in
            let directory = try StateDirectory(creating: root)
            let first = try CurveKeyPair.generate()
            let second = try CurveKeyPair.generate()
            let path = directory.file("allowed_clients")
            try write("\(try Z85.encode(first.publicKey)) first\n", to: path)
            let curve = try directory.serverCurve()
            let list = try #require(curve.allowList)
            let own = try CurveKeyFiles.clientKeys(in: directory).publicKey
            #expect(list.contains(first.publicKey))
            #expect(!list.contains(second.publicKey))
            #expect(list.contains(own))

            let (logger, lines) = Self.recordingLogger()
            let reloader = AllowListReloader(state: directory, list: list, logger: logger)
            try write("# rotated\n\(try Z85.encode(second.publicKey)) second\n", to: path)
            let outcome = try reloader.reload().get()
            #expect(outcome.keys == 2 && outcome.added == 1 && outcome.removed == 1)
            #expect(!list.contains(first.publicKey))
            #expect(list.contains(second.publicKey))
            #expect(list.contains(own))
            let logged = lines.withLock { $0 }
            #expect(logged.count == 1)
            #expect(logged.first?.contains("allow-list reloaded") == true)
            #expect(logged.first?.contains("added=1") == true)
            #expect(logged.first?.contains("removed=1") == true)
        }
    }

    @Test("a file that does not parse changes nothing and is logged with its line number")
    func aBadFileKeepsTheCurrentList() throws {
        try withTemporaryDirectory { root in
            let directory = try StateDirectory(creating: root)
            let key = try CurveKeyPair.generate()
            let path = directory.file("allowed_clients")
            try write("\(try Z85.encode(key.publicKey))\n", to: path)
            let list = try #require(try directory.serverCurve().allowList)
            let before = list.count
            let (logger, lines) = Self.recordingLogger()
            let reloader = AllowListReloader(state: directory, list: list, logger: logger)
            try write("\(try Z85.encode(key.publicKey))\nnot a key\n", to: path)
            #expect(throws: StateError.self) { try reloader.reload().get() }
            #expect(list.contains(key.publicKey))
            #expect(list.count == before)
            let logged = lines.withLock { $0 }
            #expect(logged.first?.contains("allow-list reload failed") == true)
            #expect(logged.first?.contains("line 2") == true)
        }
    }

    @Test("a server that admits any client has nothing to reload")
    func noListNoReloader() throws {
        try withTemporaryDirectory { root in
            let directory = try StateDirectory(creating: root)
            let (logger, _) = Self.recordingLogger()
            let curve = try directory.serverCurve(allowAnyClient: true)
            #expect(AllowListReloader.forServer(curve, state: directory, logger: logger) == nil)
            #expect(AllowListReloader.forServer(nil, state: directory, logger: logger) == nil)
        }
    }
}
