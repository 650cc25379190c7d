// validation-service: the field rules over the remote-streams protocol, usernames checked live
// against auth-service. Everything it does is in ValidationCore; this file reads the configuration
// and hosts it.
import ServiceKit

let configuration = ValidationOptions.interface.parseOrExit()
await ServiceHost.main(
    ValidationDescription(configuration: configuration), name: "validation",
    version: ValidationOptions.interface.version, configuration: configuration,
    options: ValidationOptions.server)
