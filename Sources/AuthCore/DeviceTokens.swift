import Foundation
import Sodium

#if canImport(Glibc)
    import Glibc
#endif

/// Device tokens: what a client presents to prove that it logged in to an account before, so that
/// the account's shared budget of guesses (``ThrottlePolicy/accountFreeFailures``) never shuts the
/// owner out (docs/security/throttling.md).
///
/// A token is issued with every successful login and names one *device*: 16 random bytes chosen at
/// the device's first login to the account. Its text is unpadded base64url of the device id and an
/// HMAC-SHA-256 over the account's name and that id, under a 32-byte server secret, 64 characters
/// in all. Nothing is stored per token: verifying recomputes the code, so tokens survive a restart
/// as long as the secret does (`device.key` in the state directory), and replacing the secret
/// withdraws every token at once.
///
/// ```swift
/// let devices = DeviceTokens(secret: try DeviceTokens.loadOrCreateSecret(at: state.file("device.key")))
/// let issued = devices.issue(account: "alice")              // at a successful login
/// devices.verify(issued.token, account: "alice")             // issued.device
/// devices.verify(issued.token, account: "mallory")           // nil: bound to its account
/// ```
///
/// A token that is absent, garbled, forged or issued for another account verifies as nil, alike
/// and in the same few microseconds, whether or not the account exists.
public struct DeviceTokens: Sendable {
    /// A device that proved an earlier login to an account: its id, as unpadded base64url.
    public struct Device: Sendable, Hashable {
        /// The device id (16 random bytes, 22 base64url characters).
        public let id: String
    }

    /// The bytes of a device id.
    public static let idCount = 16
    /// The bytes of a server secret.
    public static let secretCount = 32
    /// The characters of a token's text: base64url of the id and the code (48 bytes).
    public static let textCount = 64

    /// What every code covers before the id and the name, so that no other HMAC under the same key
    /// can pass for a device token.
    private static let context = Array("reactive-login device token v1".utf8) + [0]

    private let secret: [UInt8]

    /// Tokens under `secret` (``secretCount`` bytes, e.g. from ``loadOrCreateSecret(at:)``).
    public init(secret: [UInt8]) {
        precondition(
            secret.count == Self.secretCount, "DeviceTokens: the secret is \(Self.secretCount) bytes")
        self.secret = secret
    }

    /// Tokens under a fresh random secret that lives as long as the value (tests, and services
    /// without a state directory).
    public static func ephemeral() -> DeviceTokens {
        DeviceTokens(secret: SecureRandom.bytes(secretCount))
    }

    /// The token for `account` on `device`, or on a new device when nil (its first login to the
    /// account). The same account and device always give the same text.
    public func issue(account: String, device: Device? = nil) -> (token: String, device: Device) {
        let id: [UInt8]
        if let device, let decoded = try? Base64URL.decode(device.id), decoded.count == Self.idCount {
            id = decoded
        } else {
            id = SecureRandom.bytes(Self.idCount)
        }
        let token = Base64URL.encode(id + code(id: id, account: account))
        return (token, Device(id: Base64URL.encode(id)))
    }

    /// The device `token` names if it is a token this secret issued for `account`; nil otherwise.
    public func verify(_ token: String?, account: String) -> Device? {
        guard let token, token.utf8.count == Self.textCount, let raw = try? Base64URL.decode(token),
            raw.count == Self.idCount + HMACSHA256.codeCount
        else { return nil }
        let id = Array(raw.prefix(Self.idCount))
        guard constantTimeEquals(Array(raw.dropFirst(Self.idCount)), code(id: id, account: account)) else {
            return nil
        }
        return Device(id: Base64URL.encode(id))
    }

    private func code(id: [UInt8], account: String) -> [UInt8] {
        HMACSHA256.code(Self.context + id + Array(account.utf8), key: secret)
    }

    // MARK: The secret file

    /// A secret file that cannot be used: what is wrong, and where.
    public struct SecretFileError: Error, Sendable, CustomStringConvertible {
        /// The file.
        public var path: String
        /// What is wrong with it.
        public var message: String

        public var description: String { "device token secret \(path): \(message)" }
    }

    /// The secret in `path` (one line: ``secretCount`` bytes as unpadded base64url), or, when the
    /// file does not exist, a new random one written there first (mode 0600, written to a
    /// temporary file, synced and renamed into place).
    ///
    /// - Throws: ``SecretFileError`` when the file is readable by group or others, does not hold
    ///   a secret, or cannot be read or written.
    public static func loadOrCreateSecret(at path: String) throws(SecretFileError) -> [UInt8] {
        func failure(_ message: String) -> SecretFileError { SecretFileError(path: path, message: message) }
        func system(_ call: String) -> SecretFileError {
            failure("\(call): \(String(cString: strerror(errno)))")
        }
        var status = stat()
        guard stat(path, &status) == 0 else {
            guard errno == ENOENT else { throw system("stat") }
            let secret = SecureRandom.bytes(secretCount)
            try writeSecret(Base64URL.encode(secret) + "\n", to: path)
            return secret
        }
        guard status.st_mode & 0o077 == 0 else {
            throw failure(
                "readable by others (mode \(String(status.st_mode & 0o777, radix: 8))); run chmod 600 on it")
        }
        let text: String
        do { text = try String(contentsOfFile: path, encoding: .utf8) } catch {
            throw failure("cannot be read: \(error)")
        }
        let line = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard let secret = try? Base64URL.decode(line), secret.count == secretCount else {
            throw failure("expected \(secretCount) bytes of unpadded base64url on one line")
        }
        return secret
    }

    private static func writeSecret(_ text: String, to path: String) throws(SecretFileError) {
        let temporary = "\(path).tmp.\(getpid())"
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            throw SecretFileError(path: temporary, message: "open: \(String(cString: strerror(errno)))")
        }
        let bytes = Array(text.utf8)
        let written =
            fchmod(descriptor, 0o600) == 0 && write(descriptor, bytes, bytes.count) == bytes.count
            && fsync(descriptor) == 0
        let number = errno
        close(descriptor)
        guard written, rename(temporary, path) == 0 else {
            let message = String(cString: strerror(written ? errno : number))
            unlink(temporary)
            throw SecretFileError(path: path, message: "cannot be written: \(message)")
        }
    }
}
