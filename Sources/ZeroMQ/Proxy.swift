internal import CZeroMQ

/// libzmq's built-in proxy (`zmq_proxy`, `zmq_proxy_steerable`): forwards messages both ways
/// between a frontend and a backend socket, optionally copying every message to a capture socket.
///
/// The proxy blocks its thread for its whole life: run it on a thread of its own
/// (``OwnedThread/spawn(name:_:)``), which owns the sockets, never on an actor or Swift's pool.
/// Typical pairs: ROUTER/DEALER (a shared queue), XSUB/XPUB, PULL/PUSH.
public enum Proxy {
    /// Runs until the context is terminated (then returns normally). Every other failure throws.
    public static func run(frontend: Socket, backend: Socket, capture: Socket? = nil) throws(ZMQError) {
        let front = try frontend.liveHandle("zmq_proxy")
        let back = try backend.liveHandle("zmq_proxy")
        let tap = capture?.rawHandle
        switch try checkedCall("zmq_proxy", { zmq_proxy(front, back, tap) }) {
        case .success, .terminated: return
        case .wouldBlock: throw ZMQError(code: .EAGAIN, function: "zmq_proxy")
        }
    }

    /// Runs until `TERMINATE` arrives on the `control` socket (or the context is terminated).
    /// `PAUSE` and `RESUME` suspend and resume forwarding; `STATISTICS` is answered on `control`
    /// when it is a REP socket. Send the commands from a PAIR/REQ connected to `control`.
    public static func runSteerable(
        frontend: Socket, backend: Socket, capture: Socket? = nil, control: Socket
    ) throws(ZMQError) {
        let front = try frontend.liveHandle("zmq_proxy_steerable")
        let back = try backend.liveHandle("zmq_proxy_steerable")
        let steer = try control.liveHandle("zmq_proxy_steerable")
        let tap = capture?.rawHandle
        switch try checkedCall("zmq_proxy_steerable", { zmq_proxy_steerable(front, back, tap, steer) }) {
        case .success, .terminated: return
        case .wouldBlock: throw ZMQError(code: .EAGAIN, function: "zmq_proxy_steerable")
        }
    }
}
