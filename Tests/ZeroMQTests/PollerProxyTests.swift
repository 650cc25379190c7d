import Dispatch
import Synchronization
import Testing
import ZeroMQ

@Suite("Poller and proxy", .timeLimit(.minutes(1)))
struct PollerProxyTests {
    @Test("the poller reports exactly the readable and writable sockets")
    func poller() async throws {
        try await onThread {
            let context = try Context()
            let first = try Socket(context, .pull, linger: 0)
            let second = try Socket(context, .pull, linger: 0)
            let firstEndpoint = inprocEndpoint()
            try first.bind(firstEndpoint)
            try second.bind(inprocEndpoint())
            let push = try Socket(context, .push, linger: 0)
            try push.connect(firstEndpoint)

            let poller = Poller()
            let a = poller.add(first, events: .readable)
            let b = poller.add(second, events: .readable)
            let c = poller.add(push, events: .writable)
            #expect(poller.count == 3)
            #expect(try poller.poll(timeout: 0) == [Poller.Ready(index: c, events: .writable)])

            try push.send(["wake"])
            poller.setEvents([], at: c)
            let ready = try poller.poll(timeout: 5000)
            #expect(ready == [Poller.Ready(index: a, events: .readable)])
            #expect(try first.receiveMessage() == ["wake"])
            #expect(try poller.poll(timeout: 10).isEmpty)
            #expect(poller.socket(at: b) === second)
            #expect(try first.events.isEmpty)
            #expect(try push.events.contains(.writable))
        }
    }

    @Test("a steerable ROUTER/DEALER proxy forwards requests and replies, and stops on TERMINATE")
    func proxy() async throws {
        let context = try Context()
        let frontendEndpoint = inprocEndpoint()
        let backendEndpoint = inprocEndpoint()
        let controlEndpoint = inprocEndpoint()
        // The proxy's thread owns its sockets; inproc allows connecting before the bind. It is
        // started right here, not from a task: a task could wait for a cooperative thread while
        // other tests keep both busy, and the client below would time out before the proxy runs.
        let proxyEnded = DispatchSemaphore(value: 0)
        let proxyError = Mutex<String?>(nil)
        OwnedThread.spawn(name: "proxy") {
            do {
                let frontend = try Socket(context, .router, linger: 0)
                try frontend.bind(frontendEndpoint)
                let backend = try Socket(context, .dealer, linger: 0)
                try backend.bind(backendEndpoint)
                let control = try Socket(context, .pair, linger: 0)
                try control.bind(controlEndpoint)
                try Proxy.runSteerable(frontend: frontend, backend: backend, control: control)
                frontend.close(linger: 0)
                backend.close(linger: 0)
                control.close(linger: 0)
            } catch {
                proxyError.withLock { $0 = "\(error)" }
            }
            proxyEnded.signal()
        }

        try await onThread {
            let worker = try Socket(context, .rep, linger: 0)
            try worker.connect(backendEndpoint)
            let client = try Socket(context, .req, linger: 0)
            try client.connect(frontendEndpoint)
            for round in 0..<5 {
                try client.send([Message("question \(round)")])
                #expect(try worker.receiveMessage() == [Message("question \(round)")])
                try worker.send([Message("answer \(round)")])
                #expect(try client.receiveMessage() == [Message("answer \(round)")])
            }
            let steer = try Socket(context, .pair, linger: 0)
            try steer.connect(controlEndpoint)
            try steer.send(["TERMINATE"])
        }
        #expect(await arrived(proxyEnded))
        #expect(proxyError.withLock { $0 } == nil)
    }
}
