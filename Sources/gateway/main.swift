// gateway: the screens (login, register, sign-in, heroes, numbers) as flow channels and commands
// over the three services. Everything it does is in GatewayCore; this file reads the configuration
// and hosts it.
import ServiceKit

let configuration = GatewayOptions.interface.parseOrExit()
await ServiceHost.main(
    GatewayDescription(configuration: configuration), name: "gateway",
    version: GatewayOptions.interface.version,
    configuration: configuration, options: GatewayOptions.server,
    allowAnyClient: configuration[GatewayOptions.clients] == .any)
