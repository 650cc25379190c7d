// auth-service: accounts, passwords and session tokens over the remote-streams protocol.
// Everything it does is in AuthCore; this file reads the configuration and runs it.
import ServiceKit

let configuration = AuthOptions.interface.parseOrExit()
await ServiceMain.run(
    service: "auth", configuration: configuration, standard: AuthOptions.standard,
    endpoint: configuration[AuthOptions.endpoint], curve: configuration[AuthOptions.curve] == .on,
    check: configuration[AuthOptions.check]
) { state, logger in
    try await AuthProcess(configuration: configuration, state: state, logger: logger)
}
