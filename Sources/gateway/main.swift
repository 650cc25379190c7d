// gateway: the screens (login, register, sign-in, heroes, numbers) as flow channels and commands
// over the three services. Everything it does is in GatewayCore; this file reads the configuration
// and runs it.
import ServiceKit

let configuration = GatewayOptions.interface.parseOrExit()
await ServiceMain.run(
    service: "gateway", configuration: configuration, standard: GatewayOptions.standard,
    endpoint: configuration[GatewayOptions.endpoint],
    curve: configuration[GatewayOptions.curve] == .on, check: configuration[GatewayOptions.check]
) { state, logger in
    try await GatewayProcess(configuration: configuration, state: state, logger: logger)
}
