/// An error a practice command reports to its user: one line saying what went wrong, where
/// (file:line when there is one) and what to do.
public struct PracticeError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Kind: String, Sendable, Codable {
        /// The request itself is wrong (unknown option value, missing argument).
        case usage
        /// An input file or text is malformed.
        case invalidInput = "invalid_input"
        /// A referenced session or template does not exist.
        case notFound = "not_found"
        /// The request contradicts stored state (same file imported twice, ambiguous reference).
        case conflict
        /// The storage layer failed.
        case storage
        /// The user stopped the command (Ctrl-C) before it wrote anything.
        case cancelled
        /// A permanent action the user has not confirmed yet (`--yes`); the message is the question.
        case unconfirmed
    }

    public let kind: Kind
    /// The message, its arguments named by their fields (`FieldText`): a front end names them its way.
    public let text: FieldText

    public init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.text = FieldText(message)
    }

    public init(_ kind: Kind, _ text: FieldText) {
        self.kind = kind
        self.text = text
    }

    public static func usage(_ message: String) -> PracticeError { PracticeError(.usage, message) }
    public static func usage(_ text: FieldText) -> PracticeError { PracticeError(.usage, text) }
    public static func invalidInput(_ message: String) -> PracticeError { PracticeError(.invalidInput, message) }
    public static func invalidInput(_ text: FieldText) -> PracticeError { PracticeError(.invalidInput, text) }
    public static func notFound(_ message: String) -> PracticeError { PracticeError(.notFound, message) }
    public static func conflict(_ message: String) -> PracticeError { PracticeError(.conflict, message) }
    public static func conflict(_ text: FieldText) -> PracticeError { PracticeError(.conflict, text) }
    public static func storage(_ message: String) -> PracticeError { PracticeError(.storage, message) }
    public static func cancelled(_ message: String) -> PracticeError { PracticeError(.cancelled, message) }
    public static func unconfirmed(_ message: String) -> PracticeError { PracticeError(.unconfirmed, message) }
    public static func unconfirmed(_ text: FieldText) -> PracticeError { PracticeError(.unconfirmed, text) }

    /// The message with the arguments' own names ("date 'x' is not a date"); `message(naming:)` for a front end's.
    public var message: String { text.description }

    /// The message, each argument named by `name` (the command line's adapter says "--date").
    public func message(naming name: (String) -> String) -> String { text.rendered(naming: name) }

    public var description: String { message }
}
