internal import CLibpq
import Glibc

/// One owned connection to PostgreSQL through libpq.
///
/// A `Connection` has one owner at a time, on a thread that owner started: every call can block (on
/// the network, on the server's locks, on its commit reaching the disk), so it never runs on Swift's
/// cooperative pool or an actor's executor. It is not `Sendable`.
///
/// Two ways to run SQL:
/// - ``execute(_:)`` and ``query(_:_:)`` block until the server answers (for start-up work:
///   migrations, advisory locks);
/// - ``pipeline(_:timeout:)`` sends many statements at once in libpq's pipeline mode with one sync
///   and reads their results in order, waiting on the socket with a deadline. One round trip for
///   the whole batch: what group commit is built on.
///
/// After a ``PostgresError/isConnectionFailure`` error the connection is unusable; make a new one.
public final class Connection {
    private var handle: OpaquePointer?
    /// Set once a wait timed out or the protocol state is unknown: refuses further use.
    private var broken = false
    /// The prepared statements' names on this connection.
    private var prepared: Set<String> = []

    /// Connects to `url` (a `postgresql://` URI or a `key=value` string), waiting at most
    /// `connectTimeout` (unless the URL sets its own `connect_timeout`).
    public init(_ url: String, connectTimeout: Duration = .seconds(5)) throws(PostgresError) {
        let seconds = String(max(1, connectTimeout.components.seconds))
        // Later keywords win: the URL's own connect_timeout overrides ours.
        let keywords = ["connect_timeout", "dbname", "application_name"]
        let values = [seconds, url, "reactive-login"]
        let connection = withCStrings(keywords) { keywordPointers in
            withCStrings(values) { valuePointers in
                PQconnectdbParams(keywordPointers, valuePointers, 1)
            }
        }
        guard let connection else {
            throw PostgresError(.connection, message: "out of memory", function: "PQconnectdbParams")
        }
        guard PQstatus(connection) == CONNECTION_OK else {
            let message = Self.text(PQerrorMessage(connection))
            PQfinish(connection)
            throw PostgresError(.connection, message: message, function: "PQconnectdbParams")
        }
        PQsetNoticeProcessor(connection, { _, _ in }, nil)  // notices are not errors: drop them
        guard PQsetnonblocking(connection, 1) == 0 else {
            let message = Self.text(PQerrorMessage(connection))
            PQfinish(connection)
            throw PostgresError(.connection, message: message, function: "PQsetnonblocking")
        }
        handle = connection
    }

    deinit {
        if let handle { PQfinish(handle) }
    }

    /// Closes the connection; idempotent. Later calls throw ``PostgresError/Kind/misuse``.
    public func close() {
        if let handle { PQfinish(handle) }
        handle = nil
    }

    /// True while the connection is open and not known to be broken.
    public var isUsable: Bool {
        guard let handle, !broken else { return false }
        return PQstatus(handle) == CONNECTION_OK
    }

    /// The server's process id for this connection (`pg_backend_pid()`), 0 when closed.
    public var backendPID: Int32 { handle.map { PQbackendPID($0) } ?? 0 }

    // MARK: Blocking calls

    /// Runs a script of one or more statements without parameters; rows are discarded.
    public func execute(_ script: String) throws(PostgresError) {
        let connection = try usable("PQexec")
        let result = PQexec(connection, script)
        _ = try consume(result, function: "PQexec")
    }

    /// Runs one statement with `parameters` (`$1`, `$2`, ...) and returns its rows.
    @discardableResult
    public func query(_ sql: String, _ parameters: [PostgresValue] = []) throws(PostgresError) -> ResultSet {
        let connection = try usable("PQexecParams")
        let marshalled = Parameters(parameters)
        let result = PQexecParams(
            connection, sql, Int32(parameters.count), marshalled.types, marshalled.values, marshalled.lengths,
            marshalled.formats, 0)
        return try consume(result, function: "PQexecParams")
    }

    // MARK: Pipeline

    /// Sends every statement in one pipeline with one sync, then reads each one's result in order,
    /// waiting for the server at most `timeout` in all. A statement the server refuses fails alone
    /// in the returned list, and every later statement fails as ``PostgresError/Kind/aborted``
    /// (PostgreSQL skips the rest of a pipeline up to its sync after an error); a transaction the
    /// pipeline opened is then rolled back by the server. A lost connection or a timeout throws
    /// instead: then the outcome of every statement is unknown.
    ///
    /// Prepared statements not yet prepared on this connection are prepared in the same pipeline.
    public func pipeline(_ statements: [PipelineStatement], timeout: Duration = .seconds(30))
        throws(PostgresError)
        -> [Result<ResultSet, PostgresError>]
    {
        try pipeline(statements, syncEach: false, timeout: timeout)
    }

    /// Sends every statement in one pipeline with a sync after each, so that each one runs in its
    /// own implicit transaction (committed on its own, holding its row locks only while it runs),
    /// then reads each one's result in order, waiting for the server at most `timeout` in all. A
    /// statement the server refuses fails alone; the others run. A lost connection or a timeout
    /// throws: then the outcome of every statement is unknown.
    public func pipelineSeparately(_ statements: [PipelineStatement], timeout: Duration = .seconds(30))
        throws(PostgresError)
        -> [Result<ResultSet, PostgresError>]
    {
        try pipeline(statements, syncEach: true, timeout: timeout)
    }

    private func pipeline(_ statements: [PipelineStatement], syncEach: Bool, timeout: Duration)
        throws(PostgresError)
        -> [Result<ResultSet, PostgresError>]
    {
        let connection = try usable("PQenterPipelineMode")
        let deadline = ContinuousClock.now + timeout
        guard PQenterPipelineMode(connection) == 1 else { throw failure(connection, "PQenterPipelineMode") }
        // For each statement: the name it prepares first, if any.
        var preparing: [String?] = []
        preparing.reserveCapacity(statements.count)
        var pending = Set<String>()
        for statement in statements {
            let marshalled = Parameters(statement.parameters)
            let count = Int32(statement.parameters.count)
            let sent: Int32
            switch statement.form {
            case .sql(let sql):
                preparing.append(nil)
                sent = PQsendQueryParams(
                    connection, sql, count, marshalled.types, marshalled.values, marshalled.lengths,
                    marshalled.formats, 0)
            case .prepared(let prepared):
                if !self.prepared.contains(prepared.name) && !pending.contains(prepared.name) {
                    guard PQsendPrepare(connection, prepared.name, prepared.sql, 0, nil) == 1 else {
                        throw failure(connection, "PQsendPrepare")
                    }
                    pending.insert(prepared.name)
                    preparing.append(prepared.name)
                } else {
                    preparing.append(nil)
                }
                sent = PQsendQueryPrepared(
                    connection, prepared.name, count, marshalled.values, marshalled.lengths,
                    marshalled.formats, 0)
            }
            guard sent == 1 else { throw failure(connection, "PQsendQuery") }
            if syncEach {
                guard PQpipelineSync(connection) == 1 else { throw failure(connection, "PQpipelineSync") }
            }
        }
        if !syncEach {
            guard PQpipelineSync(connection) == 1 else { throw failure(connection, "PQpipelineSync") }
        }
        try flush(connection, deadline: deadline)

        var outcomes: [Result<ResultSet, PostgresError>] = []
        outcomes.reserveCapacity(statements.count)
        for name in preparing {
            var preparation: PostgresError?
            if let name {
                switch try nextOutcome(connection, deadline: deadline) {
                case .success: self.prepared.insert(name)
                case .failure(let error): preparation = error
                }
            }
            let outcome = try nextOutcome(connection, deadline: deadline)
            // A statement that could not be prepared fails with the reason, not as skipped.
            outcomes.append(preparation.map { .failure($0) } ?? outcome)
            if syncEach { try readSync(connection, deadline: deadline) }
        }
        if !syncEach { try readSync(connection, deadline: deadline) }
        guard PQexitPipelineMode(connection) == 1 else { throw failure(connection, "PQexitPipelineMode") }
        return outcomes
    }

    /// Reads the result that marks a sync of the pipeline.
    private func readSync(_ connection: OpaquePointer, deadline: ContinuousClock.Instant) throws(PostgresError) {
        guard let sync = try nextResult(connection, deadline: deadline) else {
            throw lost(connection, "PQgetResult", "no sync at the end of the pipeline")
        }
        let status = PQresultStatus(sync)
        PQclear(sync)
        guard status == PGRES_PIPELINE_SYNC else {
            throw lost(connection, "PQgetResult", "unexpected result at the end of the pipeline")
        }
    }

    /// The next statement's result (and the end of its results), as an outcome.
    private func nextOutcome(_ connection: OpaquePointer, deadline: ContinuousClock.Instant)
        throws(PostgresError)
        -> Result<ResultSet, PostgresError>
    {
        guard let result = try nextResult(connection, deadline: deadline) else {
            throw lost(connection, "PQgetResult", "a statement had no result")
        }
        let outcome: Result<ResultSet, PostgresError>
        if PQresultStatus(result) == PGRES_PIPELINE_ABORTED {
            PQclear(result)
            outcome = .failure(
                PostgresError(
                    .aborted, message: "not run: an earlier statement of the pipeline failed",
                    function: "PQgetResult"))
        } else {
            do {
                outcome = .success(try consume(result, function: "PQgetResult"))
            } catch {
                if error.kind == .connection || PQstatus(connection) != CONNECTION_OK {
                    broken = true
                    throw error
                }
                outcome = .failure(error)
            }
        }
        // Each statement's results end with a null result.
        if let extra = try nextResult(connection, deadline: deadline) {
            PQclear(extra)
            throw lost(connection, "PQgetResult", "a statement answered more than one result")
        }
        return outcome
    }

    /// `PQgetResult` once it would not block, waiting on the socket until `deadline`.
    private func nextResult(_ connection: OpaquePointer, deadline: ContinuousClock.Instant)
        throws(PostgresError)
        -> OpaquePointer?
    {
        while PQisBusy(connection) == 1 {
            try wait(connection, for: Int16(POLLIN), deadline: deadline)
            guard PQconsumeInput(connection) == 1 else { throw lost(connection, "PQconsumeInput", nil) }
        }
        return PQgetResult(connection)
    }

    /// Sends everything libpq has buffered, reading meanwhile so that the server never blocks on a
    /// full socket while this side blocks on its own.
    private func flush(_ connection: OpaquePointer, deadline: ContinuousClock.Instant) throws(PostgresError) {
        while true {
            let flushed = PQflush(connection)
            if flushed == 0 { return }
            if flushed < 0 { throw lost(connection, "PQflush", nil) }
            let ready = try wait(connection, for: Int16(POLLIN | POLLOUT), deadline: deadline)
            if ready & Int16(POLLIN) != 0, PQconsumeInput(connection) != 1 {
                throw lost(connection, "PQconsumeInput", nil)
            }
        }
    }

    /// Waits until the socket is ready for `events` or `deadline` passes (a timeout breaks the
    /// connection: the server may still answer later, out of step).
    @discardableResult
    private func wait(_ connection: OpaquePointer, for events: Int16, deadline: ContinuousClock.Instant)
        throws(PostgresError) -> Int16
    {
        let socket = PQsocket(connection)
        guard socket >= 0 else { throw lost(connection, "PQsocket", "no socket") }
        while true {
            let left = deadline - ContinuousClock.now
            guard left > .zero else {
                broken = true
                throw PostgresError(.timeout, message: "the server did not answer in time", function: "poll")
            }
            let milliseconds = Int32(
                min(
                    left.components.seconds * 1_000 + left.components.attoseconds / 1_000_000_000_000_000 + 1,
                    60_000))
            var descriptor = pollfd(fd: socket, events: events, revents: 0)
            let ready = poll(&descriptor, 1, milliseconds)
            if ready < 0 {
                if errno == EINTR { continue }
                broken = true
                throw PostgresError(.connection, message: String(cString: strerror(errno)), function: "poll")
            }
            if ready > 0 { return descriptor.revents }
        }
    }

    // MARK: Helpers

    private func usable(_ function: String) throws(PostgresError) -> OpaquePointer {
        guard let handle else {
            throw PostgresError(.misuse, message: "the connection is closed", function: function)
        }
        guard !broken else {
            throw PostgresError(.connection, message: "the connection is broken", function: function)
        }
        return handle
    }

    /// The connection-level error libpq reports now; marks the connection broken.
    private func failure(_ connection: OpaquePointer, _ function: String) -> PostgresError {
        lost(connection, function, nil)
    }

    private func lost(_ connection: OpaquePointer, _ function: String, _ message: String?) -> PostgresError {
        broken = true
        let text = Self.text(PQerrorMessage(connection))
        return PostgresError(
            .connection, message: message ?? (text.isEmpty ? "connection lost" : text), function: function)
    }

    /// Copies a result out and clears it; a failed status throws (with its SQLSTATE when the server
    /// sent one).
    private func consume(_ result: OpaquePointer?, function: String) throws(PostgresError) -> ResultSet {
        guard let result else {
            let connection = handle
            broken = true
            let message = connection.map { Self.text(PQerrorMessage($0)) } ?? "no result"
            throw PostgresError(.connection, message: message, function: function)
        }
        defer { PQclear(result) }
        let status = PQresultStatus(result)
        switch status {
        case PGRES_COMMAND_OK, PGRES_TUPLES_OK, PGRES_EMPTY_QUERY:
            return Self.copy(result)
        default:
            let state = PQresultErrorField(result, Int32(UInt8(ascii: "C"))).map { String(cString: $0) }
            let primary = PQresultErrorField(result, Int32(UInt8(ascii: "M"))).map { String(cString: $0) }
            let message = primary ?? Self.text(PQresultErrorMessage(result))
            if let state, !state.isEmpty {
                return try Self.throwServer(SQLState(rawValue: state), message, function)
            }
            broken = handle.map { PQstatus($0) != CONNECTION_OK } ?? true
            throw PostgresError(broken ? .connection : .server, message: message, function: function)
        }
    }

    private static func throwServer(_ state: SQLState, _ message: String, _ function: String)
        throws(PostgresError)
        -> ResultSet
    {
        throw PostgresError(.server, sqlState: state, message: message, function: function)
    }

    private static func copy(_ result: OpaquePointer) -> ResultSet {
        let rowCount = Int(PQntuples(result))
        let columnCount = Int(PQnfields(result))
        let columns = (0..<columnCount).map { PQfname(result, Int32($0)).map { String(cString: $0) } ?? "" }
        var rows: [[String?]] = []
        rows.reserveCapacity(rowCount)
        for row in 0..<Int32(rowCount) {
            rows.append(
                (0..<Int32(columnCount)).map { column in
                    PQgetisnull(result, row, column) == 1
                        ? nil : String(cString: PQgetvalue(result, row, column))
                })
        }
        let affected = PQcmdTuples(result).map { Int(String(cString: $0)) ?? 0 } ?? 0
        return ResultSet(columns: columns, rows: rows, affectedRows: affected)
    }

    private static func text(_ pointer: UnsafeMutablePointer<CChar>?) -> String {
        guard let pointer else { return "" }
        return String(cString: pointer).trimmingWhitespace()
    }
}

extension String {
    fileprivate func trimmingWhitespace() -> String {
        var text = Substring(self)
        while let last = text.last, last.isWhitespace { text.removeLast() }
        return String(text)
    }
}

/// Parameters as libpq takes them: NUL-terminated text (text format) or bytes (binary format, as
/// `bytea`), kept alive until the value goes.
private final class Parameters {
    var values: [UnsafePointer<CChar>?] = []
    var lengths: [Int32] = []
    var formats: [Int32] = []
    var types: [Oid] = []
    private var owned: [UnsafeMutableRawPointer] = []

    init(_ parameters: [PostgresValue]) {
        for parameter in parameters {
            switch parameter {
            case .null: append(nil, length: 0, format: 0, type: 0)
            case .text(let text): appendText(text, type: 0)
            case .integer(let value): appendText(String(value), type: 20)  // int8
            case .boolean(let value): appendText(value ? "t" : "f", type: 16)  // bool
            case .bytes(let bytes):
                append(
                    copy(bytes.map { CChar(bitPattern: $0) }), length: Int32(bytes.count), format: 1, type: 17
                )
            }
        }
    }

    private func appendText(_ text: String, type: Oid) {
        append(copy(Array(text.utf8CString)), length: 0, format: 0, type: type)
    }

    /// A copy of `characters` that lives as long as this value (at least one byte, so never null).
    private func copy(_ characters: [CChar]) -> UnsafePointer<CChar> {
        let storage = UnsafeMutablePointer<CChar>.allocate(capacity: max(1, characters.count))
        storage.initialize(repeating: 0, count: max(1, characters.count))
        storage.update(from: characters, count: characters.count)
        owned.append(UnsafeMutableRawPointer(storage))
        return UnsafePointer(storage)
    }

    private func append(_ value: UnsafePointer<CChar>?, length: Int32, format: Int32, type: Oid) {
        values.append(value)
        lengths.append(length)
        formats.append(format)
        types.append(type)
    }

    deinit {
        for pointer in owned { pointer.deallocate() }
    }
}

/// Calls `body` with `strings` as an array of C strings, valid during the call, ended by a null.
private func withCStrings<T>(_ strings: [String], _ body: ([UnsafePointer<CChar>?]) -> T) -> T {
    let copies = strings.map { strdup($0) }
    defer { for copy in copies { free(copy) } }
    return body(copies.map { UnsafePointer($0) } + [nil])
}
