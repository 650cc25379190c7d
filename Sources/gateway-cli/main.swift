// gateway-cli: the gateway's client (docs/gateway/cli.md).
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

exit(
    GatewayCLI.run(Array(CommandLine.arguments.dropFirst()), environment: ProcessInfo.processInfo.environment)
)
