public import Reactive
public import RemoteProtocol

/// The `RemoteError` code `single` fails with, or nil when it succeeds (an error of another type
/// comes back as a code that names it, so an assertion on the code shows it).
public func errorCode<T: Sendable>(of single: Single<T>) async -> ErrorCode? {
    do {
        _ = try await single.value
        return nil
    } catch let error as RemoteError {
        return error.code
    } catch {
        return ErrorCode("not a RemoteError: \(error)")
    }
}
