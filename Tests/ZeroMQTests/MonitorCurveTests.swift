import Testing
import ZeroMQ

@Suite("Monitor events", .timeLimit(.minutes(1)))
struct MonitorTests {
    @Test("a monitor sees connected, accepted and disconnected")
    func connectAcceptDisconnect() async throws {
        try await onThread {
            let context = try Context()
            let router = try Socket(context, .router, linger: 0)
            let routerEvents = try router.monitor()
            let endpoint = try router.bindLoopback()
            let listening = try routerEvents.wait(timeout: 5000) {
                if case .listening = $0.kind { return true }
                return false
            }
            #expect(listening?.endpoint == endpoint)

            let dealer = try Socket(context, .dealer, linger: 0)
            let dealerEvents = try dealer.monitor()
            try dealer.connect(endpoint)
            let connected = try dealerEvents.wait(timeout: 5000) {
                if case .connected = $0.kind { return true }
                return false
            }
            #expect(connected?.endpoint == endpoint)
            let accepted = try routerEvents.wait(timeout: 5000) {
                if case .accepted = $0.kind { return true }
                return false
            }
            #expect(accepted != nil)
            let handshake = try dealerEvents.wait(timeout: 5000) { $0.kind == .handshakeSucceeded }
            #expect(handshake != nil)

            dealer.close(linger: 0)
            let disconnected = try routerEvents.wait(timeout: 5000) {
                if case .disconnected = $0.kind { return true }
                return false
            }
            #expect(disconnected != nil)
            let stopped = try dealerEvents.wait(timeout: 5000) { $0.kind == .monitorStopped }
            #expect(stopped != nil)
            dealerEvents.close()
            routerEvents.close()
        }
    }

    @Test("closing a monitored socket stops its monitor: a peer leaving after the PAIR closed stalls nothing")
    func closingStopsTheMonitor() async throws {
        try await onThread {
            let context = try Context()
            for _ in 0..<20 {
                let router = try Socket(context, .router, linger: 0)
                let endpoint = try router.bindLoopback()
                let dealer = try Socket(context, .dealer, linger: 0)
                let events = try dealer.monitor(events: [.handshakeSucceeded, .disconnected])
                try dealer.connect(endpoint)
                #expect(try events.next(timeout: 5000)?.kind == .handshakeSucceeded)
                // As a loop closes a group: the socket, then its monitor; then the peer goes while
                // libzmq may still be tearing the dealer's connection down.
                dealer.close()
                events.close()
                router.close()
            }
            // The context's I/O thread still serves a new connection.
            let router = try Socket(context, .router, linger: 0)
            let endpoint = try router.bindLoopback()
            let dealer = try Socket(context, .dealer, linger: 0)
            try dealer.connect(endpoint)
            try dealer.send(["ping"])
            let request = try router.receiveMessage()
            #expect(request.dropFirst() == ["ping"])
        }
    }

    @Test("monitor frames are parsed, unknown events kept")
    func parsing() {
        var header: [UInt8] = []
        withUnsafeBytes(of: UInt16(0x0001)) { header += $0 }
        withUnsafeBytes(of: UInt32(7)) { header += $0 }
        let event = MonitorEvent(parts: [header, Array("tcp://127.0.0.1:1".utf8)])
        #expect(event == MonitorEvent(kind: .connected(fileDescriptor: 7), endpoint: "tcp://127.0.0.1:1"))
        var unknown: [UInt8] = []
        withUnsafeBytes(of: UInt16(0x8000)) { unknown += $0 }
        withUnsafeBytes(of: UInt32(1)) { unknown += $0 }
        #expect(MonitorEvent(parts: [unknown, []])?.kind == .unknown(event: 0x8000, value: 1))
        #expect(MonitorEvent(parts: [[1, 2, 3]]) == nil)
    }
}

@Suite("CURVE and Z85", .timeLimit(.minutes(1)))
struct CurveTests {
    @Test("Z85 matches the RFC 32 test vector and round-trips")
    func z85() throws {
        let bytes: [UInt8] = [0x86, 0x4F, 0xD2, 0x6F, 0xB5, 0x59, 0xF7, 0x5B]
        #expect(try Z85.encode(bytes) == "HelloWorld")
        #expect(try Z85.decode("HelloWorld") == bytes)
        let random = (0..<32).map { _ in UInt8.random(in: 0...255) }
        #expect(try Z85.decode(Z85.encode(random)) == random)
        #expect(throws: ZMQError.self) { try Z85.encode([1, 2, 3]) }
        #expect(throws: ZMQError.self) { try Z85.decode("abcd") }
        #expect(throws: ZMQError.self) { try Z85.decode("abc\"e") }
    }

    @Test("a generated key pair has 32-byte keys whose public half derives from the secret")
    func keyPair() throws {
        #expect(CurveKeyPair.isAvailable)
        let pair = try CurveKeyPair.generate()
        #expect(pair.publicKey.count == 32)
        #expect(pair.secretKey.count == 32)
        #expect(try pair.publicKeyZ85.count == 40)
        #expect(try CurveKeyPair(secretKey: pair.secretKey) == pair)
        #expect(try CurveKeyPair.generate() != pair)
    }

    @Test("a CURVE-encrypted DEALER/ROUTER exchange")
    func encryptedExchange() async throws {
        try await onThread {
            let context = try Context()
            let serverKeys = try CurveKeyPair.generate()
            let clientKeys = try CurveKeyPair.generate()
            let router = try Socket(context, .router, linger: 0)
            try router.set(.curveServer, true)
            try router.set(.curveSecretKey, serverKeys.secretKey)
            let endpoint = try router.bindLoopback()

            let dealer = try Socket(context, .dealer, linger: 0)
            try dealer.set(.curveServerKey, serverKeys.publicKey)
            try dealer.set(.curvePublicKey, clientKeys.publicKey)
            try dealer.set(.curveSecretKey, clientKeys.secretKey)
            let events = try dealer.monitor(events: [.handshakeSucceeded, .handshakeFailedProtocol])
            try dealer.connect(endpoint)
            #expect(try events.next(timeout: 5000)?.kind == .handshakeSucceeded)

            try dealer.send(["secret", "request"])
            let request = try router.receiveMessage()
            #expect(request.dropFirst() == ["secret", "request"])
            try router.send([request[0], "secret reply"])
            #expect(try dealer.receiveMessage() == ["secret reply"])

            // A plain-text client never gets through to the CURVE server.
            let plain = try Socket(context, .dealer, linger: 0)
            try plain.connect(endpoint)
            try plain.send(["in clear"], dontWait: true)
            try router.set(.receiveTimeout, 200)
            #expect(try router.receive() == .wouldBlock)
            events.close()
        }
    }
}

@Suite("ZAP allow-list", .timeLimit(.minutes(1)))
struct ZAPTests {
    /// A CURVE client of `server` with `keys`, monitored for the handshake's outcome.
    static func client(
        _ context: Context, _ endpoint: String, server: CurveKeyPair, keys: CurveKeyPair
    ) throws -> (Socket, SocketMonitor) {
        let dealer = try Socket(context, .dealer, linger: 0)
        try dealer.set(.curveServerKey, server.publicKey)
        try dealer.set(.curvePublicKey, keys.publicKey)
        try dealer.set(.curveSecretKey, keys.secretKey)
        let events = try dealer.monitor(events: [.handshakeSucceeded, .handshakeFailedAuth])
        try dealer.connect(endpoint)
        return (dealer, events)
    }

    @Test("a CURVE server with an allow-list admits known keys and refuses unknown ones")
    func allowList() async throws {
        let context = try Context()
        let allowed = try CurveKeyPair.generate()
        let stranger = try CurveKeyPair.generate()
        let allowList = CurveAllowList([allowed.publicKey])
        let zap = try ZAPHandler(context: context, allowList: allowList)
        try await onThread {
            let server = try CurveKeyPair.generate()
            let router = try Socket(context, .router, linger: 0)
            try router.set(.curveServer, true)
            try router.set(.curveSecretKey, server.secretKey)
            let endpoint = try router.bindLoopback()

            let (good, goodEvents) = try Self.client(context, endpoint, server: server, keys: allowed)
            #expect(try goodEvents.next(timeout: 5000)?.kind == .handshakeSucceeded)
            try good.send(["let me in"])
            let request = try router.receiveMessage()
            #expect(request.dropFirst() == ["let me in"])

            let (bad, badEvents) = try Self.client(context, endpoint, server: server, keys: stranger)
            #expect(try badEvents.next(timeout: 5000)?.kind == .handshakeFailedAuth(statusCode: 400))
            try bad.send(["let me in too"], dontWait: true)
            try router.set(.receiveTimeout, 200)
            #expect(try router.receive() == .wouldBlock)
            goodEvents.close()
            badEvents.close()
        }
        // One handler per context: a second cannot bind the ZAP endpoint while the first runs.
        #expect(throws: ZMQError.self) { _ = try ZAPHandler(context: context) { _ in .deny(reason: "") } }
        await zap.stop()
        #expect(zap.statistics.allowed >= 1)
        #expect(zap.statistics.denied >= 1)
    }
}
