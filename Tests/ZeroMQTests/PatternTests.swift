import Testing
import ZeroMQ

@Suite("Socket patterns", .timeLimit(.minutes(1)))
struct PatternTests {
    @Test("DEALER/ROUTER: multipart round trip with routing ids over tcp on a random port")
    func dealerRouter() async throws {
        try await onThread {
            let context = try Context()
            let router = try Socket(context, .router, linger: 0)
            let endpoint = try router.bindLoopback()
            #expect(endpoint.hasPrefix("tcp://127.0.0.1:"))
            let dealer = try Socket(context, .dealer, linger: 0)
            try dealer.set(.routingID, Array("client-1".utf8))
            try dealer.connect(endpoint)

            try dealer.send(["hello", "world", Message([0, 1, 2, 255])])
            let request = try router.receiveMessage()
            #expect(request == ["client-1", "hello", "world", Message([0, 1, 2, 255])])

            try router.send(parts: [Array("client-1".utf8), Array("reply".utf8), []])
            let reply = try dealer.receiveMessage()
            #expect(reply == ["reply", .empty])
            router.close(linger: 0)
            dealer.close(linger: 0)
        }
    }

    @Test("REQ/REP over ipc in a temporary directory")
    func requestReply() async throws {
        try await onThread {
            let context = try Context()
            let endpoint = try ipcEndpoint()
            let rep = try Socket(context, .rep, linger: 0)
            try rep.bind(endpoint)
            let req = try Socket(context, .req, linger: 0)
            try req.connect(endpoint)
            for round in 0..<3 {
                try req.send([Message("ping \(round)")])
                #expect(try rep.receiveMessage() == [Message("ping \(round)")])
                try rep.send([Message("pong \(round)")])
                #expect(try req.receiveMessage() == [Message("pong \(round)")])
            }
            // REQ must alternate: a second send before the reply is EFSM.
            try req.send(["again"])
            #expect(throws: ZMQError(code: .EFSM, function: "zmq_msg_send")) { try req.send(["too soon"]) }
        }
    }

    @Test("PUB/SUB with a prefix filter over inproc")
    func publishSubscribe() async throws {
        try await onThread {
            let context = try Context()
            let endpoint = inprocEndpoint()
            let pub = try Socket(context, .pub, linger: 0)
            try pub.bind(endpoint)
            let sub = try Socket(context, .sub, linger: 0)
            try sub.set(.subscribe, Array("news.".utf8))
            try sub.connect(endpoint)
            // A subscription takes effect asynchronously: publish until the first one arrives.
            var first: [Message]?
            try sub.set(.receiveTimeout, 10)
            for attempt in 0..<500 {
                try pub.send(["weather.today", "rain"])
                try pub.send([Message("news.\(attempt)"), "story"])
                if case .done(let parts) = try sub.receive() {
                    first = parts
                    break
                }
            }
            #expect(first?[0].string.hasPrefix("news.") == true)
            try pub.send(["weather.tomorrow", "sun"])
            try pub.send(["news.last", "end"])
            // Everything received is news; the weather never passes the filter.
            var last: [Message] = []
            repeat {
                last = try sub.receiveMessage(within: 2000)
                #expect(last[0].string.hasPrefix("news."))
            } while last[0] != "news.last"
            #expect(last == ["news.last", "end"])
        }
    }

    @Test("PUSH/PULL over tcp distributes every message")
    func pushPull() async throws {
        try await onThread {
            let context = try Context()
            let pull = try Socket(context, .pull, linger: 0)
            let endpoint = try pull.bindLoopback()
            let push = try Socket(context, .push, linger: 0)
            try push.connect(endpoint)
            for index in 0..<100 { try push.send([Message("job \(index)")]) }
            for index in 0..<100 { #expect(try pull.receiveMessage() == [Message("job \(index)")]) }
        }
    }

    @Test("PAIR over inproc both ways")
    func pair() async throws {
        try await onThread {
            let context = try Context()
            let endpoint = inprocEndpoint()
            let left = try Socket(context, .pair, linger: 0)
            try left.bind(endpoint)
            let right = try Socket(context, .pair, linger: 0)
            try right.connect(endpoint)
            try left.send(["to the right", "2"])
            #expect(try right.receiveMessage() == ["to the right", "2"])
            try right.send(["to the left"])
            #expect(try left.receiveMessage() == ["to the left"])
        }
    }

    @Test("unbind and disconnect stop the traffic")
    func unbindDisconnect() async throws {
        try await onThread {
            let context = try Context()
            let pull = try Socket(context, .pull, linger: 0)
            let endpoint = try pull.bindLoopback()
            let push = try Socket(context, .push, linger: 0)
            try push.connect(endpoint)
            try push.send(["one"])
            #expect(try pull.receiveMessage() == ["one"])
            try push.disconnect(endpoint)
            try pull.unbind(endpoint)
            #expect(throws: ZMQError.self) { try pull.unbind(endpoint) }
        }
    }
}
