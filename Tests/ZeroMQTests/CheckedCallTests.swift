import Testing
import ZeroMQ

@Suite("Checked calls", .timeLimit(.minutes(1)))
struct CheckedCallTests {
    @Test("a non-blocking receive with nothing queued is would-block, not an error")
    func wouldBlockIsAValue() async throws {
        try await onThread {
            let context = try Context()
            let pull = try Socket(context, .pull, linger: 0)
            try pull.bind(inprocEndpoint())
            let result = try pull.receive(dontWait: true)
            #expect(result == .wouldBlock)
            #expect(try pull.tryReceive() == nil)
            pull.close(linger: 0)
        }
    }

    @Test("a receive timeout returns would-block")
    func timeoutIsWouldBlock() async throws {
        try await onThread {
            let context = try Context()
            let pull = try Socket(context, .pull, linger: 0)
            try pull.bind(inprocEndpoint())
            try pull.set(.receiveTimeout, 10)
            #expect(try pull.receive() == .wouldBlock)
        }
    }

    @Test("shutting the context down makes a blocked receive fail with ETERM")
    func contextTerminated() async throws {
        let context = try Context()
        let outcome = try await onThread { () -> ZMQError? in
            let pull = try Socket(context, .pull, linger: 0)
            try pull.bind(inprocEndpoint())
            try pull.set(.receiveTimeout, 10)
            // Shut down from this thread after confirming the socket works; the next receive fails.
            #expect(try pull.receive() == .wouldBlock)
            context.shutdown()
            do {
                _ = try pull.receive(dontWait: false)
                return nil
            } catch let error as ZMQError {
                pull.close(linger: 0)
                return error
            }
        }
        #expect(outcome?.code == .ETERM)
        #expect(outcome?.isContextTerminated == true)
        #expect(outcome?.function == "zmq_msg_recv")
        context.terminate()
        #expect(throws: ZMQError.self) { _ = try Socket(context, .pair, linger: 0) }
    }

    @Test("a bad endpoint throws the C error number, its text and the function")
    func badEndpoint() async throws {
        try await onThread {
            let context = try Context()
            let socket = try Socket(context, .dealer, linger: 0)
            do {
                try socket.connect("bogus://nowhere")
                Issue.record("connect to an unknown transport succeeded")
            } catch let error as ZMQError {
                #expect(error.code == .EPROTONOSUPPORT)
                #expect(error.function == "zmq_connect")
                #expect(!error.message.isEmpty)
                #expect(error.description.contains("zmq_connect"))
            }
            do {
                try socket.bind("tcp://127.0.0.1:not-a-port")
                Issue.record("bind to a malformed endpoint succeeded")
            } catch let error as ZMQError {
                #expect(error.code == .EINVAL)
                #expect(error.function == "zmq_bind")
            }
            #expect(throws: ZMQError.self) { try socket.unbind("tcp://127.0.0.1:1") }
            socket.close(linger: 0)
            do {
                try socket.connect("inproc://x")
                Issue.record("a closed socket connected")
            } catch let error as ZMQError {
                #expect(error.code == .ENOTSOCK)
            }
        }
    }

    @Test("an invalid option value throws EINVAL")
    func invalidOption() async throws {
        try await onThread {
            let context = try Context()
            let socket = try Socket(context, .dealer, linger: 0)
            #expect(throws: ZMQError(code: .EINVAL, function: "zmq_setsockopt")) {
                try socket.set(.routingID, [])
            }
        }
    }
}
