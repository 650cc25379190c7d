/// Turns the keys ncurses reads into the keys the screens get: bracketed paste (the terminal sends
/// pasted text between `ESC [200~` and `ESC [201~` once the client asks with `ESC [?2004h`) becomes
/// one ``Key/paste(_:)`` of its printable characters, so nothing pasted navigates; an escape
/// sequence ncurses does not know (it hands those over byte by byte) becomes one
/// ``Key/unknown(_:)`` instead of an Esc and some characters.
///
/// Pure: feed it every key read, and call ``idle()`` when no more input is waiting (that is when a
/// lone Esc is an Esc). Not thread-safe; the UI thread owns it.
struct KeyDecoder: Sendable {
    /// Where the decoder is in the input.
    enum State: Sendable, Equatable {
        /// Between keys.
        case ground
        /// After an Esc: a key by itself, or the start of a sequence.
        case escape
        /// Inside a control sequence (`ESC [`), with its parameter characters so far.
        case sequence(String)
        /// Inside a paste, with its text so far.
        case paste(String)
        /// After an Esc inside a paste: the end mark (`[201~`) so far, or pasted text.
        case pasteEscape(String, mark: String)
    }

    /// The state now.
    private(set) var state = State.ground

    /// The paste's start and end marks after the Esc.
    static let pasteStart = "[200~"
    static let pasteEnd = "[201~"

    /// Whether a key is held back waiting for what follows (call ``idle()`` when nothing does).
    var holding: Bool { state != .ground }

    /// The keys `key` completes.
    mutating func feed(_ key: Key) -> [Key] {
        switch state {
        case .ground:
            if key == .escape {
                state = .escape
                return []
            }
            return [key]
        case .escape:
            if key == .character("[") {
                state = .sequence("")
                return []
            }
            state = .ground
            return [.escape] + feed(key)
        case .sequence(let parameters):
            guard case .character(let character) = key, let scalar = character.unicodeScalars.first,
                character.unicodeScalars.count == 1
            else {
                state = .ground
                return [.unknown(27)] + feed(key)
            }
            switch scalar.value {
            case 0x20...0x3F:
                state = .sequence(parameters + String(character))
                return []
            case 0x40...0x7E:
                if "[" + parameters + String(character) == Self.pasteStart {
                    state = .paste("")
                    return []
                }
                state = .ground
                return [.unknown(27)]
            default:
                state = .ground
                return [.unknown(27)] + feed(key)
            }
        case .paste(let text):
            switch key {
            case .escape:
                state = .pasteEscape(text, mark: "")
            case .character(let character):
                state = .paste(text + Self.printable(character))
            default:
                break  // Newlines, tabs and keys ncurses decoded from pasted bytes: not text.
            }
            return []
        case .pasteEscape(let text, let mark):
            if case .character(let character) = key {
                let next = mark + String(character)
                if next == Self.pasteEnd {
                    state = .ground
                    return text.isEmpty ? [] : [.paste(text)]
                }
                if Self.pasteEnd.hasPrefix(next) {
                    state = .pasteEscape(text, mark: next)
                    return []
                }
            }
            // Not the end mark: an Esc in the pasted text (dropped) and what followed it is text.
            state = .paste(text + Self.printable(mark))
            return feed(key)
        }
    }

    /// No more input is waiting: a held Esc is an Esc, an unfinished sequence an unknown key, and
    /// a paste hands over what it has so far (it goes on with the next input).
    mutating func idle() -> [Key] {
        switch state {
        case .ground:
            return []
        case .escape:
            state = .ground
            return [.escape]
        case .sequence:
            state = .ground
            return [.unknown(27)]
        case .paste(let text):
            state = .paste("")
            return text.isEmpty ? [] : [.paste(text)]
        case .pasteEscape(let text, let mark):
            state = .pasteEscape("", mark: mark)
            return text.isEmpty ? [] : [.paste(text)]
        }
    }

    /// `text` without control characters.
    static func printable(_ text: some StringProtocol) -> String {
        String(String.UnicodeScalarView(text.unicodeScalars.filter { !$0.isControl }))
    }

    static func printable(_ character: Character) -> String { printable(String(character)) }
}
