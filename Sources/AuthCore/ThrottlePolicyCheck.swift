import Foundation
public import Reactive
import Synchronization

extension ThrottlePolicy {
    /// The fields the shared login throttle (``PostgresLoginThrottle``) passes to the database, by
    /// name, each with its canonical value: a count as a decimal integer, a duration as whole
    /// microseconds followed by `us`.
    public var sharedFields: [(name: String, value: String)] {
        func us(_ duration: Duration) -> String { "\(PostgresLoginThrottle.microseconds(duration))us" }
        return [
            ("freeFailures", "\(freeFailures)"), ("baseDelay", us(baseDelay)),
            ("maximumDelay", us(maximumDelay)),
            ("lockAfter", "\(lockAfter)"), ("lockDuration", us(lockDuration)),
            ("failureMemory", us(failureMemory)),
            ("clientFailuresPerMinute", "\(clientFailuresPerMinute)"),
            ("accountFreeFailures", "\(accountFreeFailures)"),
            ("accountFailuresPerMinute", "\(accountFailuresPerMinute)"),
            ("inFlightExpiry", us(inFlightExpiry)),
        ]
    }

    /// ``sharedFields`` as one line, `name=value` separated by spaces, in that order: what the
    /// database records as the policy its replicas should agree on.
    public var sharedText: String { sharedFields.map { "\($0.name)=\($0.value)" }.joined(separator: " ") }

    /// The shared fields whose values differ between this policy and `text` (another policy's
    /// ``sharedText``), in ``sharedFields``' order, each with both values (nil where `text` lacks
    /// it); a field only `text` has is listed too.
    public func differences(from text: String) -> [ThrottlePolicyDifference] {
        var recorded: [String: String] = [:]
        var order: [String] = []
        for pair in text.split(separator: " ") {
            let parts = pair.split(separator: "=", maxSplits: 1)
            let name = String(parts[0])
            if recorded[name] == nil { order.append(name) }
            recorded[name] = parts.count == 2 ? String(parts[1]) : ""
        }
        let own = sharedFields
        var differences = own.compactMap { field -> ThrottlePolicyDifference? in
            recorded[field.name] == field.value
                ? nil
                : ThrottlePolicyDifference(
                    field: field.name, own: field.value, recorded: recorded[field.name])
        }
        let known = Set(own.map(\.name))
        for name in order where !known.contains(name) {
            differences.append(ThrottlePolicyDifference(field: name, own: nil, recorded: recorded[name]))
        }
        return differences
    }
}

/// One field on which two replicas' login-throttle policies differ.
public struct ThrottlePolicyDifference: Sendable, Hashable, CustomStringConvertible {
    /// The field's name (``ThrottlePolicy/sharedFields``).
    public var field: String
    /// This replica's value (nil: it has no such field).
    public var own: String?
    /// The recorded value (nil: the record has no such field).
    public var recorded: String?

    /// `field: here <own>, recorded <recorded>` (`none` for a missing value).
    public var description: String { "\(field): here \(own ?? "none"), recorded \(recorded ?? "none")" }
}

/// The login-throttle policy a database's replicas should agree on, as the database records it:
/// the latest replica to start with the shared throttle wrote it.
public struct RecordedThrottlePolicy: Sendable, Hashable {
    /// The policy (``ThrottlePolicy/sharedText``).
    public var policy: String
    /// Who wrote it (``ThrottlePolicyCheck/replicaIdentity``).
    public var replica: String
    /// When, by the database's clock (ISO 8601, UTC).
    public var writtenAt: String
}

/// Compares one replica's login-throttle policy with the one its database records, so an operator
/// learns when replicas sharing the throttle apply different limits.
///
/// On start a replica records its policy (``record()``), replacing the previous record: the latest
/// start wins, so a rolling update that changes the flags moves the record to the new ones. Then it
/// checks the record periodically (``check()``); while the record differs, ``mismatch`` is true.
/// Each check's finding is new only once per recorded policy, so a caller logs a mismatch once per
/// change of the record, not at every check.
public final class ThrottlePolicyCheck: Sendable {
    /// What a check learned that the previous one had not.
    public enum Finding: Sendable, Hashable {
        /// The record differs from this replica's policy on these fields.
        case differs([ThrottlePolicyDifference], RecordedThrottlePolicy)
        /// The record agrees again with this replica's policy, after differing.
        case agrees(RecordedThrottlePolicy)
    }

    /// What the checks have seen so far.
    enum State: Sendable, Hashable {
        /// Nothing differing seen yet, or the record agrees.
        case agreeing
        /// The record differs; `policy` is the recorded text last reported.
        case differing(policy: String)

        /// The transition for a record read: the new state and what to report, if anything.
        func observe(_ record: RecordedThrottlePolicy?, own: ThrottlePolicy) -> (State, Finding?) {
            // No record (it was deleted by hand): nothing to compare with, nothing to report.
            guard let record else { return (self, nil) }
            let differences = own.differences(from: record.policy)
            switch (self, differences.isEmpty) {
            case (.agreeing, true): return (.agreeing, nil)
            case (.differing, true): return (.agreeing, .agrees(record))
            case (.differing(let policy), false) where policy == record.policy: return (self, nil)
            case (_, false): return (.differing(policy: record.policy), .differs(differences, record))
            }
        }
    }

    private let throttle: PostgresLoginThrottle
    /// This replica's identity in the record.
    public let replica: String
    private let state = Mutex(State.agreeing)

    /// This process: `host pid N`.
    public static var replicaIdentity: String {
        "\(ProcessInfo.processInfo.hostName) pid \(ProcessInfo.processInfo.processIdentifier)"
    }

    /// A check of `throttle`'s policy, recorded as written by `replica`.
    public init(throttle: PostgresLoginThrottle, replica: String = ThrottlePolicyCheck.replicaIdentity) {
        self.throttle = throttle
        self.replica = replica
    }

    /// True while the latest check found the record differing from this replica's policy.
    public var mismatch: Bool {
        if case .differing = state.withLock({ $0 }) { return true }
        return false
    }

    /// Records this replica's policy as the one the database's replicas should agree on; answers the
    /// record it replaced, if any (a caller says how it differed). The check then agrees.
    public func record() -> Single<RecordedThrottlePolicy?> {
        throttle.recordPolicy(replica: replica).do(onSuccess: { [self] _ in
            state.withLock { $0 = .agreeing }
        })
    }

    /// Reads the record and compares it with this replica's policy; answers what is new since the
    /// previous check, if anything.
    public func check() -> Single<Finding?> {
        let own = throttle.policy
        return throttle.recordedPolicy().map { [self] record in
            state.withLock { state in
                let (next, finding) = state.observe(record, own: own)
                state = next
                return finding
            }
        }
    }
}
