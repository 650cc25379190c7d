import Postgres

extension PostgresAccountStore {
    // MARK: Threads' work

    /// Applies the pending `migrations` (``migrations`` unless given) under the migration lock;
    /// returns the versions applied.
    static func migrate(
        _ connection: Connection, _ migrations: [(version: Int, sql: String)] = migrations
    ) throws -> [Int] {
        try connection.query("SELECT pg_advisory_lock($1)", [.integer(migrationLock)])
        defer { _ = try? connection.query("SELECT pg_advisory_unlock($1)", [.integer(migrationLock)]) }
        try connection.execute(
            """
            CREATE TABLE IF NOT EXISTS schema_migrations (
                version integer PRIMARY KEY,
                applied_at timestamptz NOT NULL DEFAULT now()
            )
            """)
        let present = try connection.query("SELECT version FROM schema_migrations")
        var applied = Set<Int>()
        for row in 0..<present.rows.count { applied.insert(Int(try present.integer(row, 0))) }
        let latest = migrations.map(\.version).max() ?? 0
        if let newest = applied.max(), newest > latest {
            throw PostgresError(
                .misuse,
                message: "the database's schema (version \(newest)) is newer than this program's (\(latest))",
                function: "migrate")
        }
        var done: [Int] = []
        for migration in migrations where !applied.contains(migration.version) {
            do {
                try connection.execute(
                    "BEGIN;\n\(migration.sql);\nINSERT INTO schema_migrations (version) VALUES (\(migration.version));\nCOMMIT;"
                )
            } catch {
                try? connection.execute("ROLLBACK")
                throw error
            }
            done.append(migration.version)
        }
        return done
    }

    /// Commits `jobs` in one transaction, in one pipeline; a statement the server refuses is
    /// answered alone and the rest sent again. Returns the connection failure that ended it, if any
    /// (then every job not yet answered has been answered with it).
    static func commit(
        _ jobs: ArraySlice<Job>, on connection: Connection, timeout: Duration,
        count: @Sendable ((inout Counters) -> Void) -> Void
    ) -> PostgresError? {
        var group = Array(jobs)
        while !group.isEmpty {
            let outcomes: [Result<ResultSet, PostgresError>]
            let started = ContinuousClock.now
            do {
                outcomes = try connection.pipeline(
                    [.sql("BEGIN")] + group.map(\.statement) + [.sql("COMMIT")], timeout: timeout)
            } catch {
                for job in group { job.complete(.failure(error)) }
                return error
            }
            guard let failed = outcomes.firstIndex(where: { if case .failure = $0 { true } else { false } })
            else {
                let elapsed = ContinuousClock.now - started
                count { counters in
                    counters.commits += 1
                    counters.commitDuration.record(elapsed)
                    counters.writes += group.count
                    counters.largestGroup = max(counters.largestGroup, group.count)
                }
                for (job, outcome) in zip(group, outcomes[1...]) { job.complete(outcome) }
                return nil
            }
            guard case .failure(let error) = outcomes[failed] else { return nil }
            // The transaction is aborted: end it before anything else runs on the connection.
            do {
                _ = try connection.pipeline([.sql("ROLLBACK")], timeout: timeout)
            } catch {
                for job in group { job.complete(.failure(error)) }
                return error
            }
            if error.isConnectionFailure || !connection.isUsable {
                for job in group { job.complete(.failure(error)) }
                return error
            }
            if failed == 0 || failed == outcomes.count - 1 {
                // BEGIN or COMMIT itself failed: nothing of the group was committed.
                for job in group { job.complete(.failure(error)) }
                return nil
            }
            group.remove(at: failed - 1).complete(.failure(error))
        }
        return nil
    }

    /// Runs `jobs` as one pipeline outside a transaction; a statement after a failed one is sent
    /// again in the next pipeline.
    static func read(_ jobs: [Job], on connection: Connection, timeout: Duration) -> PostgresError? {
        var pending = jobs[...]
        while !pending.isEmpty {
            let outcomes: [Result<ResultSet, PostgresError>]
            do {
                outcomes = try connection.pipeline(pending.map(\.statement), timeout: timeout)
            } catch {
                for job in pending { job.complete(.failure(error)) }
                return error
            }
            var next = pending.endIndex
            for (index, outcome) in zip(pending.indices, outcomes) {
                if case .failure(let error) = outcome, error.kind == .aborted {
                    next = index
                    break
                }
                pending[index].complete(outcome)
            }
            pending = pending[next...]
        }
        return nil
    }

    /// Runs `jobs` as one pipeline with a sync after each statement: each is its own transaction,
    /// so a statement holds its row locks only while it runs (statements of several replicas
    /// cannot deadlock across a batch) and one that fails fails alone.
    static func runSeparately(_ jobs: [Job], on connection: Connection, timeout: Duration)
        -> PostgresError?
    {
        do {
            let outcomes = try connection.pipelineSeparately(jobs.map(\.statement), timeout: timeout)
            for (job, outcome) in zip(jobs, outcomes) { job.complete(outcome) }
            return nil
        } catch {
            for job in jobs { job.complete(.failure(error)) }
            return error
        }
    }

    static func refuse(_ jobs: [Job]) {
        let error = PostgresError(.connection, message: "the connection was lost", function: "DatabaseThread")
        for job in jobs { job.complete(.failure(error)) }
    }
}
