public import ProcessSupport
public import ZeroMQ

#if canImport(Glibc)
    import Glibc
#endif

/// A service's CURVE key files in its state directory: generated on first start, loaded after.
///
/// A key pair is two files: the secret key (`curve.key`, mode 0600, 40 Z85 characters) and the
/// public key (`curve.pub`, 40 Z85 characters), each followed by a line break. Tools use a second
/// pair, `client.key`/`client.pub`, the same way.
public enum CurveKeyFiles {
    /// The service's own pair: `curve.key` and `curve.pub`.
    public static func serverKeys(in directory: StateDirectory) throws(StateError) -> CurveKeyPair {
        try loadOrCreate(secret: directory.file("curve.key"), public: directory.file("curve.pub"))
    }

    /// The pair tools use as a client: `client.key` and `client.pub`.
    public static func clientKeys(in directory: StateDirectory) throws(StateError) -> CurveKeyPair {
        try loadOrCreate(secret: directory.file("client.key"), public: directory.file("client.pub"))
    }

    /// Loads the pair from `secretPath` (deriving the public key) or, when that file does not
    /// exist, generates a pair and writes both files.
    ///
    /// Fails, naming the file, when the secret file is readable by group or others, is not 40 Z85
    /// characters, or when an existing public file does not match the secret key.
    public static func loadOrCreate(secret secretPath: String, public publicPath: String)
        throws(StateError) -> CurveKeyPair
    {
        guard access(secretPath, F_OK) == 0 else {
            let pair = try generate(secretPath)
            try StateFile.replace(publicPath, try z85(pair.publicKey, secretPath), mode: 0o644)
            try StateFile.replace(secretPath, try z85(pair.secretKey, secretPath), mode: 0o600)
            return pair
        }
        var status = stat()
        guard stat(secretPath, &status) == 0 else {
            throw .system(.keyFile, "stat", path: secretPath, errno: errno)
        }
        guard status.st_mode & 0o077 == 0 else {
            throw StateError(
                code: .keyFile, path: secretPath,
                message:
                    "secret key is readable by others (mode \(String(status.st_mode & 0o777, radix: 8)));"
                    + " run chmod 600 on it")
        }
        let secretKey = try readKey(secretPath)
        let pair: CurveKeyPair
        do { pair = try CurveKeyPair(secretKey: secretKey) } catch {
            throw StateError(
                code: .keyFile, path: secretPath, message: "not a CURVE secret key: \(error)")
        }
        if access(publicPath, F_OK) == 0 {
            guard try readKey(publicPath) == pair.publicKey else {
                throw StateError(
                    code: .keyFile, path: publicPath,
                    message: "does not match the secret key in \(secretPath); delete it to have it rewritten")
            }
        } else {
            try StateFile.replace(publicPath, try z85(pair.publicKey, publicPath), mode: 0o644)
        }
        return pair
    }

    /// The key in a Z85 key file such as another service's `curve.pub`: what a client of that
    /// service needs as its server key.
    public static func publicKey(at path: String) throws(StateError) -> [UInt8] {
        try readKey(path)
    }

    /// Reads one Z85 key (40 characters, surrounding whitespace ignored) from `path`.
    static func readKey(_ path: String) throws(StateError) -> [UInt8] {
        let text = try StateFile.read(path, code: .keyFile).trimmingWhitespace()
        guard text.utf8.count == 40, let key = try? Z85.decode(text) else {
            throw StateError(
                code: .keyFile, path: path, message: "expected one 40-character Z85 key on its own line")
        }
        return key
    }

    private static func generate(_ path: String) throws(StateError) -> CurveKeyPair {
        guard CurveKeyPair.isAvailable else {
            throw StateError(
                code: .keyFile, path: path, message: "libzmq was built without CURVE support")
        }
        do { return try CurveKeyPair.generate() } catch {
            throw StateError(code: .keyFile, path: path, message: "key generation failed: \(error)")
        }
    }

    private static func z85(_ key: [UInt8], _ path: String) throws(StateError) -> String {
        do { return try Z85.encode(key) } catch {
            throw StateError(code: .keyFile, path: path, message: "Z85 encoding failed: \(error)")
        }
    }
}
