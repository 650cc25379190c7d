internal import CZeroMQ

/// The ZeroMQ socket types the system uses (libzmq's stable API; no draft types on Debian).
public enum SocketType: Sendable, Hashable, CaseIterable {
    /// Asynchronous request side; connects to ROUTER (the remote-streams client).
    case dealer
    /// Routes by the peer's routing id (first frame); the remote-streams server.
    case router
    /// Strict send/receive alternation, request side.
    case req
    /// Strict receive/send alternation, reply side.
    case rep
    /// Publishes to every subscriber whose filter matches.
    case pub
    /// Receives publications matching its subscriptions.
    case sub
    /// Distributes messages round-robin to pullers.
    case push
    /// Receives from pushers, fair-queued.
    case pull
    /// Exclusive pair (used for `inproc://` wake-ups and socket monitors).
    case pair

    /// The C constant (`ZMQ_DEALER`, ...).
    var rawValue: Int32 {
        switch self {
        case .dealer: ZMQ_DEALER
        case .router: ZMQ_ROUTER
        case .req: ZMQ_REQ
        case .rep: ZMQ_REP
        case .pub: ZMQ_PUB
        case .sub: ZMQ_SUB
        case .push: ZMQ_PUSH
        case .pull: ZMQ_PULL
        case .pair: ZMQ_PAIR
        }
    }
}
