internal import CSodium

/// An error reported by the `Sodium` module: what went wrong, the libsodium function that failed
/// and a message.
///
/// Errors may grow with the module, so this is a struct with an extensible ``Code`` rather than a
/// closed enum. Compare `error.code` against the constants:
///
/// ```swift
/// do { _ = try Base64URL.decode(text) } catch where error.code == .invalidBase64 { ... }
/// ```
public struct SodiumError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The kind of failure.
    public struct Code: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
        /// The code's stable name.
        public let rawValue: String

        /// Wraps a code name.
        public init(rawValue: String) { self.rawValue = rawValue }

        /// An Argon2id cost outside libsodium's limits.
        public static let invalidCost = Code(rawValue: "invalid_cost")
        /// libsodium could not hash (in practice: it could not allocate the cost's memory).
        public static let hashingFailed = Code(rawValue: "hashing_failed")
        /// Text that is not canonical unpadded base64url, or decodes to the wrong length.
        public static let invalidBase64 = Code(rawValue: "invalid_base64")
        /// A string that is not a well-formed `$argon2id$v=19$m=…,t=…,p=1$salt$hash` PHC string.
        public static let malformedHashString = Code(rawValue: "malformed_hash_string")

        /// The code's name.
        public var description: String { rawValue }
    }

    /// The kind of failure.
    public let code: Code
    /// The libsodium function (or `Sodium` operation) that failed, for example `crypto_pwhash_str_alg`.
    public let function: String
    /// What went wrong, in words.
    public let message: String

    /// Creates an error.
    public init(code: Code, function: String, message: String) {
        self.code = code
        self.function = function
        self.message = message
    }

    /// `function: message (code)`.
    public var description: String { "\(function): \(message) (\(code))" }
}

/// The one checked-call helper for every libsodium call that reports failure as a non-zero result
/// (`0` is success, `-1` failure): throws a ``SodiumError`` with `code`, the function's name and
/// `message` when the call fails.
@inline(__always)
func checkedCall(
    _ function: StaticString, _ code: SodiumError.Code, _ message: @autoclosure () -> String,
    _ body: () -> Int32
) throws(SodiumError) {
    guard body() == 0 else {
        throw SodiumError(code: code, function: "\(function)", message: message())
    }
}

/// libsodium's one-time initialisation.
enum LibSodium {
    /// `sodium_init()`'s outcome. A `static let` is initialised lazily, exactly once and
    /// thread-safely (Swift guarantees this for globals and static stored properties).
    private static let initialized: Bool = sodium_init() >= 0

    /// Initialises libsodium on first use (thread-safe, idempotent).
    ///
    /// `sodium_init` fails only when the system cannot provide secure randomness; continuing would
    /// make salts and tokens predictable, so that stops the process.
    static func ensureInitialized() {
        precondition(initialized, "sodium_init failed: no secure source of randomness")
    }

    /// The text a C function wrote into `chars`, up to its terminating NUL (ASCII here).
    static func string(fromNULTerminated chars: [CChar]) -> String {
        String(decoding: chars.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// Overwrites `buffer` with zeros in a way the compiler cannot optimise away (`sodium_memzero`).
    static func wipe(_ buffer: UnsafeMutableRawBufferPointer) {
        guard let base = buffer.baseAddress else { return }
        sodium_memzero(base, buffer.count)
    }
}
