// validation-service: the field rules over the remote-streams protocol, usernames checked live
// against auth-service. Everything it does is in ValidationCore; this file reads the configuration
// and runs it.
import ServiceKit

let configuration = ValidationOptions.interface.parseOrExit()
await ServiceMain.run(
    service: "validation", configuration: configuration, standard: ValidationOptions.standard,
    endpoint: configuration[ValidationOptions.endpoint],
    curve: configuration[ValidationOptions.curve] == .on, check: configuration[ValidationOptions.check]
) { state, logger in
    try await ValidationProcess(configuration: configuration, state: state, logger: logger)
}
