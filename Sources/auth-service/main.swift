// auth-service: accounts, passwords and session tokens over the remote-streams protocol.
// Everything it does is in AuthCore; this file reads the configuration and hosts it.
import ServiceKit

let configuration = AuthOptions.interface.parseOrExit()
await ServiceHost.main(
    AuthDescription(configuration: configuration), name: "auth", version: AuthOptions.interface.version,
    configuration: configuration, options: AuthOptions.server)
