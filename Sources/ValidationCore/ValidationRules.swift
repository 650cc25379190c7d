public import Contracts

/// The field rules of docs/ARCHITECTURE.md §2, as pure functions of the text.
///
/// Username and password lengths are counted in user-perceived characters (grapheme clusters,
/// `String.count`): "é" typed as `e` plus a combining accent is one character. Phone numbers count
/// ASCII digits. A username to register refuses format characters, the zero-width joiner among
/// them, so an emoji joined with it (a family emoji) is `username.invalid`, not one character.
/// Every limit is a flag of `validation-service`; the messages that name a limit carry it as the
/// parameter `n`.
public struct ValidationRules: Sendable, Hashable {
    /// Fewest characters of a username to register.
    public var minimumUsernameLength: Int
    /// Most characters of a username (auth-service's own limit: it refuses longer names).
    public var maximumUsernameLength: Int
    /// Fewest characters of a password to log in with.
    public var minimumLoginPasswordLength: Int
    /// Fewest characters of a password to register.
    public var minimumRegisterPasswordLength: Int
    /// Fewest digits of a phone number.
    public var minimumPhoneDigits: Int
    /// Most digits of a phone number.
    public var maximumPhoneDigits: Int

    /// Rules with the demos' limits: usernames and passwords at least 6 (usernames at most 64, as
    /// auth-service), phones 11 to 15 digits.
    public init(
        minimumUsernameLength: Int = 6, maximumUsernameLength: Int = 64, minimumLoginPasswordLength: Int = 6,
        minimumRegisterPasswordLength: Int = 6, minimumPhoneDigits: Int = 11, maximumPhoneDigits: Int = 15
    ) {
        self.minimumUsernameLength = minimumUsernameLength
        self.maximumUsernameLength = max(minimumUsernameLength, maximumUsernameLength)
        self.minimumLoginPasswordLength = minimumLoginPasswordLength
        self.minimumRegisterPasswordLength = minimumRegisterPasswordLength
        self.minimumPhoneDigits = minimumPhoneDigits
        self.maximumPhoneDigits = max(minimumPhoneDigits, maximumPhoneDigits)
    }

    /// What the rules alone say about a username: a final result, or a name to look up.
    public enum UsernameStep: Sendable, Hashable {
        /// The rules decide without asking auth-service.
        case decided(ValidationResult)
        /// The rules pass; whether the name exists decides (see ``usernameVerdict(exists:purpose:)``).
        case lookUp(String)
    }

    /// A phone number: empty; `phone.format` for anything but ASCII digits (signs, spaces,
    /// full-width digits included); `phone.short` for too few digits, `phone.long` for too many;
    /// else ok.
    public func phone(_ text: String) -> ValidationResult {
        if text.isEmpty { return .empty }
        var digits = 0
        for scalar in text.unicodeScalars {
            guard ("0"..."9").contains(scalar) else { return .failed(.phoneFormat) }
            digits += 1
        }
        if digits < minimumPhoneDigits { return .failed(.phoneShort) }
        if digits > maximumPhoneDigits { return .failed(.phoneLong) }
        return .ok()
    }

    /// A password: empty; too short (`password.short` to log in, `password.min {n}` to register);
    /// else ok (`password.ok` to register, no message to log in).
    public func password(_ text: String, purpose: PasswordPurpose) -> ValidationResult {
        if text.isEmpty { return .empty }
        switch purpose {
        case .login:
            return text.count < minimumLoginPasswordLength ? .failed(.passwordShort) : .ok()
        case .register:
            return text.count < minimumRegisterPasswordLength
                ? .failed(.passwordMin, ["n": String(minimumRegisterPasswordLength)]) : .ok(.passwordOK)
        }
    }

    /// A username before the lookup: empty; to register, `username.invalid` for characters
    /// auth-service refuses (control, format, line and paragraph separators, private use,
    /// unassigned), `username.short {n}` when too short, `username.long {n}` when too long; to sign
    /// in, a name too long to be anyone's is `username.unknown` without a lookup. Otherwise the name
    /// must be looked up.
    public func username(_ text: String, purpose: UsernamePurpose) -> UsernameStep {
        if text.isEmpty { return .decided(.empty) }
        // Past this many bytes no name can be short enough (NFC at most triples a text's length),
        // and counting characters of a megabyte is not worth it.
        let tooManyBytes = text.utf8.count > 3 * 1_024
        switch purpose {
        case .register:
            let long = ValidationResult.failed(.usernameLong, ["n": String(maximumUsernameLength)])
            if tooManyBytes { return .decided(long) }
            if text.unicodeScalars.contains(where: Self.isRefused) {
                return .decided(.failed(.usernameInvalid))
            }
            let length = text.count
            if length < minimumUsernameLength {
                return .decided(.failed(.usernameShort, ["n": String(minimumUsernameLength)]))
            }
            if length > maximumUsernameLength { return .decided(long) }
        case .signin:
            if tooManyBytes || text.count > maximumUsernameLength {
                return .decided(.failed(.usernameUnknown))
            }
        }
        return .lookUp(text)
    }

    /// Characters auth-service never accepts in a username.
    private static func isRefused(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.properties.generalCategory {
        case .control, .format, .lineSeparator, .paragraphSeparator, .surrogate, .privateUse, .unassigned:
            true
        default:
            false
        }
    }

    /// A username after the lookup. To register, a taken name fails (`username.exists`) and a free
    /// one is ok (`username.available`); to sign in, an existing name is ok (`username.exists`) and
    /// an unknown one fails (`username.unknown`).
    public func usernameVerdict(exists: Bool, purpose: UsernamePurpose) -> ValidationResult {
        switch (purpose, exists) {
        case (.register, true): .failed(.usernameExists)
        case (.register, false): .ok(.usernameAvailable)
        case (.signin, true): .ok(.usernameExists)
        case (.signin, false): .failed(.usernameUnknown)
        }
    }

    /// The repeated password: empty; ok when it equals the password; else `repeat.mismatch`.
    public func `repeat`(password: String, repeat repeated: String) -> ValidationResult {
        if repeated.isEmpty { return .empty }
        return repeated == password ? .ok() : .failed(.repeatMismatch)
    }
}
