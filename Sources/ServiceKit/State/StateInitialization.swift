public import ProcessSupport
import RemoteStreams
import ZeroMQ

/// What `--init` prepared: the public keys a deployment exchanges between services.
public struct InitializedState: Sendable, Hashable {
    /// The state directory's path.
    public let path: String
    /// The service's own public key (`curve.pub`), Z85: what its clients need as the server key.
    public let serverKey: String
    /// The public key the service uses as a client (`client.pub`), Z85: what the services it calls
    /// add to their `allowed_clients`.
    public let clientKey: String

    /// The line `--init` prints: `server_key=<z85> client_key=<z85>` (Z85 has no spaces, so the
    /// line splits on them).
    public var line: String { "server_key=\(serverKey) client_key=\(clientKey)" }
}

extension StateDirectory {
    /// Creates what a service needs before its first start, where missing: the server key pair
    /// (`curve.key`/`curve.pub`), the client key pair (`client.key`/`client.pub`) and the
    /// allow-list (`allowed_clients`). Existing files are kept and checked (a secret key readable
    /// by others, a public key that does not match, a malformed allow-list line all fail, naming
    /// the file), so running it again changes nothing.
    public func initialize() throws(StateError) -> InitializedState {
        let server = try CurveKeyFiles.serverKeys(in: self)
        let client = try CurveKeyFiles.clientKeys(in: self)
        _ = try AllowList.loadOrCreate(in: self)
        return InitializedState(
            path: path, serverKey: try Self.z85(server.publicKey, file("curve.pub")),
            clientKey: try Self.z85(client.publicKey, file("client.pub")))
    }

    private static func z85(_ key: [UInt8], _ path: String) throws(StateError) -> String {
        do { return try Z85.encode(key) } catch {
            throw StateError(code: .keyFile, path: path, message: "Z85 encoding failed: \(error)")
        }
    }
}
