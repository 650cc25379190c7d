import Testing
import ZeroMQ

@Suite("Socket options", .timeLimit(.minutes(1)))
struct OptionTests {
    @Test("every typed option round-trips")
    func roundTrip() async throws {
        try await onThread {
            let context = try Context()
            let socket = try Socket(context, .router, linger: 0)
            #expect(try socket.get(.linger) == 0)
            let intOptions: [(SocketOption<Int32>, Int32)] = [
                (.linger, 250), (.sendHighWaterMark, 123), (.receiveHighWaterMark, 456),
                (.heartbeatInterval, 1000), (.heartbeatTTL, 3000), (.heartbeatTimeout, 2500),
                (.reconnectInterval, 50), (.reconnectIntervalMax, 5000), (.handshakeInterval, 4000),
                (.receiveTimeout, 700), (.sendTimeout, 800),
            ]
            for (option, value) in intOptions {
                try socket.set(option, value)
                #expect(try socket.get(option) == value, "\(option.name)")
            }
            try socket.set(.maxMessageSize, 65536)
            #expect(try socket.get(.maxMessageSize) == 65536)
            try socket.set(.immediate, true)
            #expect(try socket.get(.immediate))
            try socket.set(.routingID, Array("server-A".utf8))
            #expect(try socket.get(.routingID) == Array("server-A".utf8))
            // router-mandatory is write-only in libzmq 4.3: setting it works, reading it fails.
            try socket.set(.routerMandatory, true)
            socket.close(linger: 0)
        }
    }

    @Test("CURVE options take 32-byte keys")
    func curveOptions() async throws {
        try await onThread {
            let context = try Context()
            let socket = try Socket(context, .dealer, linger: 0)
            let keys = try CurveKeyPair.generate()
            try socket.set(.curveServer, true)
            try socket.set(.curveSecretKey, keys.secretKey)
            try socket.set(.curvePublicKey, keys.publicKey)
            #expect(try socket.get(.curveServer))
            #expect(try socket.get(.curvePublicKey) == keys.publicKey)
            #expect(try socket.get(.curveSecretKey) == keys.secretKey)
            #expect(throws: ZMQError.self) { try socket.set(.curveServerKey, [1, 2, 3]) }
        }
    }

    @Test("subscribe and unsubscribe are accepted by SUB, refused by others")
    func subscriptions() async throws {
        try await onThread {
            let context = try Context()
            let sub = try Socket(context, .sub, linger: 0)
            try sub.set(.subscribe, Array("a".utf8))
            try sub.set(.unsubscribe, Array("a".utf8))
            let dealer = try Socket(context, .dealer, linger: 0)
            #expect(throws: ZMQError.self) { try dealer.set(.subscribe, Array("a".utf8)) }
        }
    }

    @Test("router-mandatory turns a send to an unknown peer into EHOSTUNREACH")
    func routerMandatory() async throws {
        try await onThread {
            let context = try Context()
            let router = try Socket(context, .router, linger: 0)
            try router.bind(inprocEndpoint())
            // Without the option the message is dropped silently.
            try router.send(["nobody", "lost"])
            try router.set(.routerMandatory, true)
            #expect(throws: ZMQError(code: .EHOSTUNREACH, function: "zmq_msg_send")) {
                try router.send(["nobody", "lost"])
            }
        }
    }

    @Test("a message over the max size drops the connection and never arrives")
    func maxMessageSize() async throws {
        try await onThread {
            let context = try Context()
            let pull = try Socket(context, .pull, linger: 0)
            try pull.set(.maxMessageSize, 100)
            let monitor = try pull.monitor(events: [.accepted, .disconnected])
            let endpoint = try pull.bindLoopback()
            let push = try Socket(context, .push, linger: 0)
            try push.connect(endpoint)
            try push.send([Message(String(repeating: "x", count: 50))])
            #expect(try pull.receiveMessage().first?.count == 50)
            try push.send([Message(String(repeating: "y", count: 1000))])
            let disconnected = try monitor.wait(timeout: 5000) {
                if case .disconnected = $0.kind { return true }
                return false
            }
            #expect(disconnected != nil)
            #expect(try pull.tryReceive() == nil)
            monitor.close()
        }
    }
}
