public import RemoteProtocol

extension Methods {
    /// The validation service's methods (docs/services/validation.md), called by the gateway.
    ///
    /// Every answer is a ``ValidationResult``: a state and a message code with its parameters, never
    /// rendered text. Field names on the wire are snake_case.
    public enum Validation {
        /// `validate.phone` ``PhoneValidationRequest`` → ``ValidationResult``.
        public static let phone = RequestMethod<PhoneValidationRequest, ValidationResult>(
            "validate.phone", retrySafety: .idempotent)
        /// `validate.password` ``PasswordValidationRequest`` → ``ValidationResult``.
        public static let password = RequestMethod<PasswordValidationRequest, ValidationResult>(
            "validate.password", retrySafety: .idempotent)
        /// `validate.username` ``UsernameValidationRequest`` → ``ValidationResult`` (asks
        /// auth-service).
        public static let username = RequestMethod<UsernameValidationRequest, ValidationResult>(
            "validate.username", retrySafety: .idempotent)
        /// `validate.repeat` ``RepeatValidationRequest`` → ``ValidationResult``.
        public static let `repeat` = RequestMethod<RepeatValidationRequest, ValidationResult>(
            "validate.repeat", retrySafety: .idempotent)
        /// `validate.fields` (channel): opened with ``FieldsParameters``, ``FieldEdit``s in,
        /// ``FieldResult``s out.
        public static let fields = ChannelMethod<FieldsParameters, FieldEdit, FieldResult>("validate.fields")

        /// Every method validation-service answers besides ``System``'s.
        public static let all: [any RemoteMethod] = [phone, password, username, `repeat`, fields]
    }
}

/// The verdict on one field's text.
public struct ValidationResult: Codable, Sendable, Hashable, CustomStringConvertible {
    /// Where the field stands.
    public enum State: String, Codable, Sendable, Hashable, CaseIterable {
        /// Valid; the code, if any, says so in words (`username.available`, `password.ok`).
        case ok
        /// Nothing typed: not valid, and no message.
        case empty
        /// Not valid; the code says why.
        case failed
        /// Being checked remotely (the username against auth-service); a final result follows.
        case validating
    }

    /// Where the field stands.
    public var state: State
    /// The message to show, if any.
    public var code: MessageCode?
    /// The message's parameters (`n` for the limits the message interpolates); empty when none.
    public var params: [String: String]

    /// A result.
    public init(state: State, code: MessageCode? = nil, params: [String: String] = [:]) {
        self.state = state
        self.code = code
        self.params = params
    }

    /// `empty`, no message.
    public static let empty = ValidationResult(state: .empty)

    /// `ok` with an optional message.
    public static func ok(_ code: MessageCode? = nil, _ params: [String: String] = [:]) -> ValidationResult {
        ValidationResult(state: .ok, code: code, params: params)
    }

    /// `failed` with its reason.
    public static func failed(_ code: MessageCode, _ params: [String: String] = [:]) -> ValidationResult {
        ValidationResult(state: .failed, code: code, params: params)
    }

    /// `validating`, with `username.checking`.
    public static let validating = ValidationResult(state: .validating, code: .usernameChecking)

    /// True for `ok`.
    public var isValid: Bool { state == .ok }

    /// E.g. `failed username.short n=6`.
    public var description: String {
        var text = state.rawValue
        if let code { text += " " + code.rawValue }
        for key in params.keys.sorted() { text += " \(key)=\(params[key] ?? "")" }
        return text
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        state = try container.decode(State.self, forKey: .state)
        code = try container.decodeIfPresent(MessageCode.self, forKey: .code)
        params = try container.decodeIfPresent([String: String].self, forKey: .params) ?? [:]
    }

    enum CodingKeys: String, CodingKey {
        case state, code, params
    }
}

/// What a password is for: the rules and the messages differ.
public enum PasswordPurpose: String, Codable, Sendable, Hashable, CaseIterable {
    /// Logging in: too short is `password.short`; valid has no message.
    case login
    /// Registering: too short is `password.min {n}`; valid is `password.ok`.
    case register
}

/// What a username is for.
public enum UsernamePurpose: String, Codable, Sendable, Hashable, CaseIterable {
    /// Registering: empty, too short (`username.short {n}`), taken (`username.exists`, failed), or
    /// available (`username.available`, ok).
    case register
    /// Signing in: exists (`username.exists`, ok) or does not (`username.unknown`, failed).
    case signin
}

/// `validate.phone`'s parameters.
public struct PhoneValidationRequest: Codable, Sendable, Hashable {
    /// The phone number as typed.
    public var text: String

    /// Parameters validating `text`.
    public init(text: String) { self.text = text }
}

/// `validate.password`'s parameters.
public struct PasswordValidationRequest: Codable, Sendable, Hashable {
    /// The password as typed.
    public var text: String
    /// Login or register.
    public var purpose: PasswordPurpose

    /// Parameters validating `text` for `purpose`.
    public init(text: String, purpose: PasswordPurpose) {
        self.text = text
        self.purpose = purpose
    }
}

/// `validate.username`'s parameters.
public struct UsernameValidationRequest: Codable, Sendable, Hashable {
    /// The username as typed.
    public var text: String
    /// Register or sign in.
    public var purpose: UsernamePurpose
    /// The end client the check is made for (passed on to `auth.exists` for its rate limit); nil
    /// means the calling connection.
    public var client: String?

    /// Parameters validating `text` for `purpose`.
    public init(text: String, purpose: UsernamePurpose, client: String? = nil) {
        self.text = text
        self.purpose = purpose
        self.client = client
    }
}

/// `validate.repeat`'s parameters.
public struct RepeatValidationRequest: Codable, Sendable, Hashable {
    /// The password.
    public var password: String
    /// The password typed again.
    public var `repeat`: String

    /// Parameters comparing `repeat` with `password`.
    public init(password: String, repeat: String) {
        self.password = password
        self.repeat = `repeat`
    }
}

/// The fields `validate.fields` validates.
public enum Field: String, Codable, Sendable, Hashable, CaseIterable {
    /// A phone number (login screen).
    case phone
    /// A username (register and sign-in screens).
    case username
    /// A password (every screen; the purpose comes from the channel's parameters).
    case password
    /// The password typed again (register screen), compared with the latest `password`.
    case `repeat`
}

/// `validate.fields`' OPEN parameters: what the screen's username and password are for.
public struct FieldsParameters: Codable, Sendable, Hashable {
    /// The username rules to apply (default `register`).
    public var usernamePurpose: UsernamePurpose
    /// The password rules to apply (default `register`).
    public var passwordPurpose: PasswordPurpose
    /// The end client the channel serves (passed on to `auth.exists`); nil means the connection.
    public var client: String?

    /// Parameters for a screen.
    public init(
        usernamePurpose: UsernamePurpose = .register, passwordPurpose: PasswordPurpose = .register,
        client: String? = nil
    ) {
        self.usernamePurpose = usernamePurpose
        self.passwordPurpose = passwordPurpose
        self.client = client
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        usernamePurpose =
            try container.decodeIfPresent(UsernamePurpose.self, forKey: .usernamePurpose) ?? .register
        passwordPurpose =
            try container.decodeIfPresent(PasswordPurpose.self, forKey: .passwordPurpose) ?? .register
        client = try container.decodeIfPresent(String.self, forKey: .client)
    }

    enum CodingKeys: String, CodingKey {
        case usernamePurpose = "username_purpose", passwordPurpose = "password_purpose", client
    }
}

/// One edit on `validate.fields`: the field's whole text after the keystroke.
public struct FieldEdit: Codable, Sendable, Hashable {
    /// Which field.
    public var field: Field
    /// Its text now.
    public var text: String

    /// An edit.
    public init(field: Field, text: String) {
        self.field = field
        self.text = text
    }
}

/// One answer on `validate.fields`.
public struct FieldResult: Codable, Sendable, Hashable, CustomStringConvertible {
    /// Which field.
    public var field: Field
    /// Its result.
    public var result: ValidationResult

    /// An answer.
    public init(field: Field, result: ValidationResult) {
        self.field = field
        self.result = result
    }

    /// E.g. `username: failed username.exists`.
    public var description: String { "\(field.rawValue): \(result)" }
}

// MARK: Direct JSON codings (docs/transport/json.md, "Direct codings"): one line per stored property.

extension ValidationResult.State: JSONFieldValue {}
extension PasswordPurpose: JSONFieldValue {}
extension UsernamePurpose: JSONFieldValue {}
extension Field: JSONFieldValue {}

extension ValidationResult: JSONBody {
    /// As `init(from:)`: missing `params` are none.
    public static let jsonFields = JSONFields<Self>(
        blank: ValidationResult(state: .empty),
        [.field("state", \.state), .field("code", \.code), .field("params", \.params, ifAbsent: [:])])
}

extension PhoneValidationRequest: JSONBody {
    public static let jsonFields = JSONFields<Self>(
        blank: PhoneValidationRequest(text: ""), [.field("text", \.text)])
}

extension PasswordValidationRequest: JSONBody {
    public static let jsonFields = JSONFields<Self>(
        blank: PasswordValidationRequest(text: "", purpose: .login),
        [.field("text", \.text), .field("purpose", \.purpose)])
}

extension UsernameValidationRequest: JSONBody {
    public static let jsonFields = JSONFields<Self>(
        blank: UsernameValidationRequest(text: "", purpose: .register),
        [.field("text", \.text), .field("purpose", \.purpose), .field("client", \.client)])
}

extension RepeatValidationRequest: JSONBody {
    public static let jsonFields = JSONFields<Self>(
        blank: RepeatValidationRequest(password: "", repeat: ""),
        [.field("password", \.password), .field("repeat", \.repeat)])
}

extension FieldsParameters: JSONBody {
    /// As `init(from:)`: both purposes default to `register`.
    public static let jsonFields = JSONFields<Self>(
        blank: FieldsParameters(),
        [
            .field("username_purpose", \.usernamePurpose, ifAbsent: .register),
            .field("password_purpose", \.passwordPurpose, ifAbsent: .register), .field("client", \.client),
        ])
}

extension FieldEdit: JSONBody {
    public static let jsonFields = JSONFields<Self>(
        blank: FieldEdit(field: .phone, text: ""), [.field("field", \.field), .field("text", \.text)])
}

extension FieldResult: JSONBody {
    public static let jsonFields = JSONFields<Self>(
        blank: FieldResult(field: .phone, result: .empty),
        [.field("field", \.field), .field("result", \.result)])
}
