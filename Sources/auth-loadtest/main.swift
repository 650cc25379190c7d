// auth-loadtest: drives auth-service with a scenario and reports what it measured. The logic is in
// LoadTestCore; this file reads the command line, connects, seeds, runs and writes the report.
import Foundation
import LoadTestCore
import ServiceKit

if CommandLine.arguments.count > 1, CommandLine.arguments[1] == "merge" {
    exit(MergeCommand.run(Array(CommandLine.arguments.dropFirst(2))))
}
if CommandLine.arguments.count > 1, CommandLine.arguments[1] == "compare" {
    exit(CompareCommand.run(Array(CommandLine.arguments.dropFirst(2))))
}
if CommandLine.arguments.count > 1, CommandLine.arguments[1] == "stub" {
    exit(await StubCommand.run(Array(CommandLine.arguments.dropFirst(2))))
}
let configuration = LoadTestOptions.interface.parseOrExit()
do {
    let code = try await LoadTestCommand(configuration: configuration).run()
    exit(code)
} catch {
    FileHandle.standardError.write(Data("auth-loadtest: \(error)\n".utf8))
    exit((error as? CommandError)?.exitCode ?? 2)
}
