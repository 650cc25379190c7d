public import ProcessSupport
public import RemoteStreams
import ZeroMQ

extension StateDirectory {
    /// The CURVE settings of a server keeping its keys in this directory: its key pair (created on
    /// first start) and, unless `allowAnyClient`, the allow-list `allowed_clients` plus the service's
    /// own client key (what `--check` uses), which is always allowed.
    public func serverCurve(allowAnyClient: Bool = false) throws(StateError) -> RemoteServer.Curve {
        let keys = try CurveKeyFiles.serverKeys(in: self)
        if allowAnyClient { return RemoteServer.Curve(keys: keys, allowList: nil) }
        return RemoteServer.Curve(keys: keys, allowList: CurveAllowList(try allowedClientKeys()))
    }

    /// The client keys a server of this directory admits: `allowed_clients` plus the service's own
    /// client key (what `--check` uses).
    public func allowedClientKeys() throws(StateError) -> Set<[UInt8]> {
        let allowed = try AllowList.loadOrCreate(in: self)
        let own = try CurveKeyFiles.clientKeys(in: self)
        return allowed.keys.union([own.publicKey])
    }
}
