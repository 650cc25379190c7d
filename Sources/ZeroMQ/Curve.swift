internal import CZeroMQ

/// Z85, ZeroMQ's printable encoding of binary keys (RFC 32), through libzmq's `zmq_z85_*`.
public enum Z85 {
    /// Encodes bytes (a multiple of 4 in length) as Z85 text (5 characters per 4 bytes).
    /// Throws `EINVAL` for other lengths.
    public static func encode(_ bytes: [UInt8]) throws(ZMQError) -> String {
        guard bytes.count % 4 == 0 else { throw ZMQError(code: .EINVAL, function: "zmq_z85_encode") }
        var text = [CChar](repeating: 0, count: bytes.count / 4 * 5 + 1)
        let ok = bytes.withUnsafeBufferPointer { source in
            text.withUnsafeMutableBufferPointer {
                zmq_z85_encode($0.baseAddress, source.baseAddress, source.count) != nil
            }
        }
        guard ok else { throw ZMQError(code: .EINVAL, function: "zmq_z85_encode") }
        return String(nulTerminated: text)
    }

    /// Decodes Z85 text (a multiple of 5 characters from the Z85 alphabet) to bytes.
    /// Throws `EINVAL` for other lengths or characters.
    public static func decode(_ text: String) throws(ZMQError) -> [UInt8] {
        let characters = Array(text.utf8)
        guard characters.count % 5 == 0, characters.allSatisfy(isZ85) else {
            throw ZMQError(code: .EINVAL, function: "zmq_z85_decode")
        }
        var bytes = [UInt8](repeating: 0, count: characters.count / 5 * 4)
        let ok = bytes.withUnsafeMutableBufferPointer { zmq_z85_decode($0.baseAddress, text) != nil }
        guard ok else { throw ZMQError(code: .EINVAL, function: "zmq_z85_decode") }
        return bytes
    }

    /// The 85 characters of the Z85 alphabet.
    private static let alphabet = Set(
        "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ.-:+=^!/*?&<>()[]{}@%$#".utf8)

    private static func isZ85(_ character: UInt8) -> Bool { alphabet.contains(character) }
}

/// A CURVE (Curve25519) long-term key pair for ZeroMQ's encrypted, authenticated transport.
///
/// A server sets ``SocketOption/curveServer`` and its secret key; a client sets the server's public
/// key (``SocketOption/curveServerKey``) and its own pair. Without a ZAP handler a CURVE server
/// accepts every client key: encryption, but no allow-list.
public struct CurveKeyPair: Sendable, Hashable {
    /// The public key (32 bytes).
    public let publicKey: [UInt8]
    /// The secret key (32 bytes). Keep it out of logs.
    public let secretKey: [UInt8]

    /// A key pair from its two 32-byte keys.
    public init(publicKey: [UInt8], secretKey: [UInt8]) {
        self.publicKey = publicKey
        self.secretKey = secretKey
    }

    /// Derives the pair from a secret key (32 bytes) with `zmq_curve_public`.
    public init(secretKey: [UInt8]) throws(ZMQError) {
        let secretText = try Z85.encode(secretKey)
        var publicText = [CChar](repeating: 0, count: 41)
        _ = try checkedCallOrThrow("zmq_curve_public") { zmq_curve_public(&publicText, secretText) }
        self.init(publicKey: try Z85.decode(String(nulTerminated: publicText)), secretKey: secretKey)
    }

    /// Generates a new random key pair (`zmq_curve_keypair`); throws `ENOTSUP` when libzmq was built
    /// without CURVE.
    public static func generate() throws(ZMQError) -> CurveKeyPair {
        var publicText = [CChar](repeating: 0, count: 41)
        var secretText = [CChar](repeating: 0, count: 41)
        _ = try checkedCallOrThrow("zmq_curve_keypair") { zmq_curve_keypair(&publicText, &secretText) }
        return CurveKeyPair(
            publicKey: try Z85.decode(String(nulTerminated: publicText)),
            secretKey: try Z85.decode(String(nulTerminated: secretText)))
    }

    /// The public key as 40 Z85 characters.
    public var publicKeyZ85: String {
        get throws(ZMQError) { try Z85.encode(publicKey) }
    }

    /// The secret key as 40 Z85 characters.
    public var secretKeyZ85: String {
        get throws(ZMQError) { try Z85.encode(secretKey) }
    }

    /// True when libzmq supports CURVE (`zmq_has("curve")`).
    public static var isAvailable: Bool { zmq_has("curve") != 0 }
}
