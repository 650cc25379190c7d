import Foundation
import Glibc
import Testing
import ZeroMQ

/// ZeroMQ's own heartbeats (ZMTP PING/PONG) against a peer that is alive at the TCP level but no
/// longer answers: the process is stopped with SIGSTOP, so its kernel keeps the connection open and
/// acknowledges segments, and only the missing PONGs show that it is gone. Closing a socket or
/// killing a process would not test this: the kernel then closes the connection itself.
@Suite("ZeroMQ heartbeats", .timeLimit(.minutes(1)))
struct HeartbeatTests {
    /// A DEALER in another process (Debian's python3-zmq, which `make test` installs): it connects,
    /// says hello, and then only answers heartbeats until it is stopped.
    static let peerScript = """
        import sys, time, zmq
        context = zmq.Context()
        dealer = context.socket(zmq.DEALER)
        dealer.setsockopt(zmq.LINGER, 0)
        dealer.connect(sys.argv[1])
        dealer.send(b"hello")
        sys.stdout.write("sent\\n")
        sys.stdout.flush()
        sys.stdin.read()
        """

    @Test("a ROUTER with heartbeats drops a peer that stops answering them")
    func silentPeerIsDropped() async throws {
        let context = try Context()
        let peer = Process()
        let toPeer = Pipe()
        let fromPeer = Pipe()
        let outcome = try await onThread { () -> (hello: String, dropped: Bool, after: Double) in
            let router = try Socket(context, .router, linger: 0)
            try router.set(.heartbeatInterval, 100)
            try router.set(.heartbeatTimeout, 400)
            let events = try router.monitor(events: [.accepted, .disconnected])
            defer { events.close() }
            let endpoint = try router.bindLoopback()
            peer.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
            peer.arguments = ["-c", Self.peerScript, endpoint]
            peer.standardInput = toPeer
            peer.standardOutput = fromPeer
            try peer.run()
            defer {
                kill(peer.processIdentifier, SIGKILL)
                peer.waitUntilExit()
            }
            let hello = try router.receiveMessage(within: 10_000)
            // The peer is connected and its heartbeats are answered: stop it dead.
            kill(peer.processIdentifier, SIGSTOP)
            let stopped = Date()
            let dropped = try events.wait(timeout: 10_000) {
                if case .disconnected = $0.kind { return true }
                return false
            }
            router.close(linger: 0)
            return (hello.last?.string ?? "", dropped != nil, Date().timeIntervalSince(stopped))
        }
        context.terminate()
        #expect(outcome.hello == "hello")
        #expect(outcome.dropped, "the ROUTER never reported the silent peer disconnected")
        // Dropped by the heartbeat timeout (0.4 s), not by TCP's own timers (minutes).
        #expect(outcome.after < 5)
    }
}
