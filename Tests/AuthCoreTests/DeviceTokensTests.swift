import Foundation
import Sodium
import Testing

@testable import AuthCore

#if canImport(Glibc)
    import Glibc
#endif

/// Device tokens: issue and verify, and the secret file they survive restarts in.
@Suite("DeviceTokens", .timeLimit(.minutes(1)))
struct DeviceTokensTests {
    @Test("a token verifies for its account only, names its device, and is the same when reissued")
    func issueAndVerify() throws {
        let devices = DeviceTokens.ephemeral()
        let issued = devices.issue(account: "alice")
        #expect(issued.token.utf8.count == DeviceTokens.textCount)
        #expect(devices.verify(issued.token, account: "alice") == issued.device)
        #expect(devices.verify(issued.token, account: "alice2") == nil)
        #expect(devices.verify(issued.token, account: "Alice") == nil)
        #expect(devices.issue(account: "alice", device: issued.device).token == issued.token)
        let other = devices.issue(account: "alice")
        #expect(other.device != issued.device)
        #expect(other.token != issued.token)
        // The same device on another account gets another token, which verifies there only.
        let elsewhere = devices.issue(account: "bob", device: issued.device)
        #expect(elsewhere.token != issued.token)
        #expect(devices.verify(elsewhere.token, account: "bob") == issued.device)
        #expect(devices.verify(elsewhere.token, account: "alice") == nil)
    }

    @Test("absent, garbled, truncated, padded, flipped and foreign tokens verify as nil")
    func invalid() throws {
        let devices = DeviceTokens.ephemeral()
        let token = devices.issue(account: "alice").token
        var flipped = try Base64URL.decode(token)
        flipped[3] ^= 0x40
        let cases: [String?] = [
            nil, "", "garbage", String(token.dropLast()), token + "A", token + "=",
            Base64URL.encode(flipped), DeviceTokens.ephemeral().issue(account: "alice").token,
            String(repeating: "_", count: 64), String(repeating: "é", count: 64),
        ]
        for text in cases { #expect(devices.verify(text, account: "alice") == nil) }
    }

    @Test("the secret file is made once with mode 0600 and read back; a loose or garbled one is refused")
    func secretFile() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.file("device.key")
        let secret = try DeviceTokens.loadOrCreateSecret(at: path)
        #expect(secret.count == DeviceTokens.secretCount)
        var status = stat()
        #expect(stat(path, &status) == 0)
        #expect(status.st_mode & 0o777 == 0o600)
        // What a restart does: the same secret, so the tokens issued before still verify.
        let token = DeviceTokens(secret: secret).issue(account: "alice")
        let reloaded = try DeviceTokens.loadOrCreateSecret(at: path)
        #expect(reloaded == secret)
        #expect(DeviceTokens(secret: reloaded).verify(token.token, account: "alice") == token.device)

        #expect(chmod(path, 0o640) == 0)
        #expect(throws: DeviceTokens.SecretFileError.self) { try DeviceTokens.loadOrCreateSecret(at: path) }
        let garbled = directory.file("garbled.key")
        try "not a secret\n".write(toFile: garbled, atomically: true, encoding: .utf8)
        #expect(chmod(garbled, 0o600) == 0)
        #expect(throws: DeviceTokens.SecretFileError.self) {
            try DeviceTokens.loadOrCreateSecret(at: garbled)
        }
        #expect(throws: DeviceTokens.SecretFileError.self) {
            try DeviceTokens.loadOrCreateSecret(at: directory.file("missing-dir/device.key"))
        }
    }
}

/// A fresh directory under the system's temp directory, removed by ``remove()``.
private struct TemporaryDirectory {
    let path: String

    init() throws {
        var template = Array("/tmp/devicetokens.XXXXXX".utf8CString)
        guard let created = mkdtemp(&template) else { throw CocoaError(.fileWriteUnknown) }
        path = String(cString: created)
    }

    func file(_ name: String) -> String { path + "/" + name }

    func remove() { try? FileManager.default.removeItem(atPath: path) }
}
