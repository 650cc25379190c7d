import Contracts
import Foundation
import ProcessSupport
import RemoteProtocol
import ZeroMQ

#if canImport(Glibc)
    import Glibc
#endif

/// A device token a successful login answered, and the account it is for (as the service names it).
public struct IssuedDeviceToken: Sendable, Hashable {
    /// The account's name.
    public var account: String
    /// The token.
    public var token: String

    /// A token for `account`.
    public init(account: String, token: String) {
        self.account = account
        self.token = token
    }
}

/// The device tokens `gateway-cli` keeps, one per account it logged in to, so that its later logins
/// keep the allowance of a known device when someone else is guessing the account's password
/// (docs/security/throttling.md).
///
/// They live in `device_tokens.json` in the client's state directory
/// (`$XDG_STATE_HOME/reactive-login/gateway-cli/`, else `~/.local/state/…`), mode 0600, at most
/// ``FlowParameters/maximumDeviceTokens`` of them (the most recently used). Each change is a read,
/// modify and atomic rename under an exclusive lock of `device_tokens.lock`, so two clients saving
/// at once both keep theirs. A file that does not parse is treated as empty and rewritten.
public struct DeviceTokenStore: Sendable {
    /// The file.
    public let path: String

    /// The store in `path`.
    public init(path: String) {
        self.path = path
    }

    /// The store in `gateway-cli`'s state directory for `environment`, which is made if need be.
    public static func standard(environment: [String: String]) throws -> DeviceTokenStore {
        let directory = try StateDirectory.prepare(
            service: "gateway-cli", override: nil, environment: environment)
        return DeviceTokenStore(path: directory.file("device_tokens.json"))
    }

    /// `open` for the interactive screens: `flow.login` and `flow.signin` channels are opened with
    /// every kept token in their parameters, and each device token their outputs bring (login's
    /// `tip`, sign-in's `session`) is kept. Other flows pass through.
    public func remembering(_ open: @escaping OpenFlow) -> OpenFlow {
        { [self] flow, parameters, inputs in
            guard flow == Methods.Flow.login || flow == Methods.Flow.signin else {
                return open(flow, parameters, inputs)
            }
            var withTokens = parameters
            withTokens.deviceTokens = all().merging(parameters.deviceTokens ?? [:]) { _, given in given }
            return open(flow, withTokens, inputs).do(onNext: { [self] output in
                guard let token = output.deviceToken, let account = output.name,
                    output.outputName == .session || output.code == .loginOK
                else { return }
                try? save(IssuedDeviceToken(account: account, token: token))
            })
        }
    }

    private struct File: Codable {
        var tokens: [Entry]
    }

    private struct Entry: Codable {
        var account: String
        var deviceToken: String

        enum CodingKeys: String, CodingKey {
            case account, deviceToken = "device_token"
        }
    }

    /// Every token, by account.
    public func all() -> [String: String] {
        Dictionary(read().map { ($0.account, $0.deviceToken) }, uniquingKeysWith: { _, last in last })
    }

    /// The token for the account `name` as typed (looked up as typed and in NFC, the form the
    /// service names accounts in).
    public func token(for name: String) -> String? {
        let tokens = all()
        return tokens[name] ?? tokens[name.precomposedStringWithCanonicalMapping]
    }

    /// Keeps `issued`, replacing the account's earlier token; past the limit, the least recently
    /// saved go.
    public func save(_ issued: IssuedDeviceToken) throws {
        try locked {
            var entries = read().filter { $0.account != issued.account }
            entries.append(Entry(account: issued.account, deviceToken: issued.token))
            let kept = Array(entries.suffix(FlowParameters.maximumDeviceTokens))
            try write(try JSONBodyCoder.shared.encode(File(tokens: kept)))
        }
    }

    private func read() -> [Entry] {
        guard let data = FileManager.default.contents(atPath: path),
            let file = try? JSONBodyCoder.shared.decode(File.self, from: Array(data))
        else { return [] }
        return file.tokens
    }

    private func locked(_ body: () throws -> Void) throws {
        let lockPath = (path as NSString).deletingPathExtension + ".lock"
        let descriptor: Int32
        do throws(Posix.PosixError) {
            descriptor = try Posix.open(lockPath, O_RDWR | O_CREAT | O_CLOEXEC, mode: 0o600)
        } catch {
            throw StoreError(path: lockPath, call: "open", errno: error.code)
        }
        defer { Posix.close(descriptor) }
        do throws(Posix.PosixError) {
            try Posix.retrying("flock") { flock(descriptor, LOCK_EX) }
        } catch {
            throw StoreError(path: lockPath, call: "flock", errno: error.code)
        }
        try body()
    }

    private func write(_ bytes: [UInt8]) throws {
        do throws(Posix.PosixError) {
            try Posix.replaceFile(path, with: bytes + [0x0a], mode: 0o600)
        } catch {
            throw StoreError(path: error.path ?? path, call: error.function, errno: error.code)
        }
    }

    /// A system call on the store's files failed.
    struct StoreError: Error, CustomStringConvertible {
        let path: String
        let call: String
        let errno: Int32

        var description: String { "\(call) \(path): \(String(cString: strerror(errno)))" }
    }
}
