// Typed commands: a command's arguments as a Decodable struct. The catalogue's argument list is made
// from the struct itself — its coding keys, in declaration order, and the type of each — so the two
// cannot drift; `fields` adds what a type cannot say (help, positional, a default, a path).
//
// How: decoding the struct once from a decoder that answers every key with a placeholder and writes
// down what was asked for (`decode(Int.self, forKey: .round)` is an integer argument named "round",
// `decodeIfPresent` an optional one). This is the synthesized `init(from:)` itself speaking, so what
// the catalogue says is what the handler decodes. A type no argument kind takes, a `fields` entry
// naming no property, or a default of the wrong kind makes `describe` fail, naming the command and
// the field (`clubhouse plugin validate`, and any test that describes the plugin).

import ClubhouseABI
import ClubhouseJSON
#if canImport(Glibc)
import Glibc
#endif

/// A command's arguments as one Decodable value:
///
///     struct Score: CommandArguments {
///         var round: Int
///         var player: String
///         var tee: Tee?                     // enum Tee: String, ArgumentChoice { case white, yellow }
///         var players: [String]
///         var yes: Bool                     // a flag: false when not given
///         static let fields = [ArgumentField("round", help: "Round id", positional: true)]
///     }
///
/// Kinds by property type: `String` string (or path, see `ArgumentField.path`), `Int` integer,
/// `Double` (or `ArgumentDecimal`, keeping the number's text) number, `Bool` flag, `[String]` list, an
/// `ArgumentChoice` enum choice (its cases are the choices), `ArgumentPoint` point, `JSONValue` json. An
/// optional property is an optional argument; any other is required unless its field gives a default
/// (a flag never is).
public protocol CommandArguments: Decodable, Sendable {
    /// What the type cannot say about its properties (help, positional, default, path), by name.
    static var fields: [ArgumentField] { get }
}

extension CommandArguments {
    public static var fields: [ArgumentField] { [] }
}

/// An enum whose cases are a choice argument's choices (`enum Nine: String, ArgumentChoice { case front, back }`):
/// the catalogue lists `allCases` by raw value, in order, and the handler gets the case.
public protocol ArgumentChoice: CaseIterable, RawRepresentable, Decodable, Sendable where RawValue == String {}

extension ArgumentChoice {
    static var choiceNames: [String] { allCases.map(\.rawValue) }
    static var firstChoice: Self? { allCases.first }
}

/// A point argument ("X,Y" on the command line, `[x, y]` in JSON).
public struct ArgumentPoint: Decodable, Sendable, Equatable {
    public var x: Double
    public var y: Double

    public init(x: Double, y: Double) {
        self.x = x
        self.y = y
    }

    public init(from decoder: any Decoder) throws {
        var pair = try decoder.unkeyedContainer()
        x = try pair.decode(Double.self)
        y = try pair.decode(Double.self)
        guard pair.isAtEnd else {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "a point is two numbers X,Y"))
        }
    }
}

/// A number argument with the text it was given ("12.30" stays "12.30"), for a core that reads
/// decimals exactly rather than through a Double.
public struct ArgumentDecimal: Decodable, Sendable, Equatable {
    public var value: Double
    /// The number's lexeme as the host typed it (`JSONNumber.lexeme`).
    public var text: String

    public init(_ text: String, value: Double) {
        self.text = text
        self.value = value
    }

    public init(from decoder: any Decoder) throws {
        switch try decoder.singleValueContainer().decode(JSONValue.self) {
        case .number(let n) where n.double.isFinite:
            self.init(n.lexeme, value: n.double)
        case let other:
            throw DecodingError.typeMismatch(Double.self, .init(codingPath: decoder.codingPath,
                                                                debugDescription: "expected a number, found \(other.kindName)"))
        }
    }
}

/// What a property's type cannot say about its argument.
public struct ArgumentField: Sendable {
    public var name: String
    public var help: String
    public var positional: Bool
    /// The value the host fills in when the caller gives none (its kind must fit the property's).
    public var defaultValue: JSONValue?
    /// A `String` property that names a file (made absolute by the host; services/files.h).
    public var isPath: Bool
    public var access: PathAccess

    public init(_ name: String, help: String = "", positional: Bool = false, default defaultValue: JSONValue? = nil) {
        self.name = name
        self.help = help
        self.positional = positional
        self.defaultValue = defaultValue
        self.isPath = false
        self.access = .read
    }

    /// A `String` property that is a path argument; `access: .write` for an output.
    public static func path(_ name: String, help: String = "", positional: Bool = false, access: PathAccess = .read) -> ArgumentField {
        var field = ArgumentField(name, help: help, positional: positional)
        field.isPath = true
        field.access = access
        return field
    }
}

/// The argument list a `CommandArguments` type makes, or why it cannot make one.
struct ArgumentShape: Sendable {
    var arguments: [Argument]
    /// Names of the flags (filled with false before decoding when not given).
    var flags: [String]
    /// Names of the path arguments (Files reaches them through the files service).
    var paths: [String]
    var problem: String?

    static func of<A: CommandArguments>(_ type: A.Type) -> ArgumentShape {
        let recorder = FieldRecorder()
        do {
            _ = try A(from: ReflectingDecoder(recorder: recorder))
        } catch let problem as ShapeProblem {
            recorder.problems.append(problem.text)
        } catch {
            recorder.problems.append("\(A.self)'s init(from:) threw on placeholder values (\(error)); "
                                     + "check values in the core, not while decoding")
        }
        var problems = recorder.problems
        let described = Dictionary(A.fields.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        var seen = Set<String>()
        for field in A.fields {
            if !seen.insert(field.name).inserted { problems.append("field '\(field.name)' is described twice") }
            if !recorder.fields.contains(where: { $0.name == field.name }) {
                problems.append("field '\(field.name)' is described but \(A.self) has no property decoded by that name")
            }
        }
        var arguments: [Argument] = []
        for recorded in recorder.fields {
            let field = described[recorded.name] ?? ArgumentField(recorded.name)
            var kind = recorded.kind
            if field.isPath {
                guard kind == .string else {
                    problems.append("field '\(recorded.name)' is a path but its type is \(recorded.typeName), not String")
                    continue
                }
                kind = .path
            }
            if let value = field.defaultValue, let why = ArgumentShape.misfit(value, kind: kind, choices: recorded.choices) {
                problems.append("field '\(recorded.name)': the default \(JSONWriter.compact(value)) \(why)")
            }
            let required = !recorded.optional && field.defaultValue == nil && kind != .flag
            var argument = Argument(recorded.name, kind, help: field.help, required: required, positional: field.positional,
                                    default: field.defaultValue, choices: recorded.choices)
            argument.access = field.access
            arguments.append(argument)
        }
        return ArgumentShape(arguments: arguments, flags: arguments.filter { $0.kind == .flag }.map(\.name),
                             paths: arguments.filter { $0.kind == .path }.map(\.name),
                             problem: problems.isEmpty ? nil : "\(A.self): " + problems.joined(separator: "; "))
    }

    /// Why a default does not fit an argument of `kind`, or nil.
    static func misfit(_ value: JSONValue, kind: ArgumentKind, choices: [String]) -> String? {
        switch kind {
        case .string, .path: return value.stringValue == nil ? "is not a string" : nil
        case .integer: return value.numberValue?.int == nil ? "is not an integer" : nil
        case .number: return value.doubleValue == nil ? "is not a number" : nil
        case .flag: return "is given to a flag (a flag is false unless given)"
        case .choice:
            guard let s = value.stringValue, choices.contains(s) else { return "is not one of \(choices.joined(separator: ", "))" }
            return nil
        case .list: return value.arrayValue?.allSatisfy({ $0.stringValue != nil }) == true ? nil : "is not a list of strings"
        case .point: return value.arrayValue?.count == 2 ? nil : "is not a point [x, y]"
        case .json: return nil
        }
    }
}

extension Arguments {
    /// The arguments as a `CommandArguments` value (flags not given are false).
    public func decode<A: CommandArguments>(_ type: A.Type) throws -> A {
        try decode(A.self, flags: ArgumentShape.of(A.self).flags)
    }

    func decode<A: Decodable>(_ type: A.Type, flags: [String]) throws -> A {
        var values = self.values
        for flag in flags where values[flag] == nil || values[flag]?.isNull == true { values[flag] = .bool(false) }
        return try Arguments(values).decode(A.self)
    }
}

extension Command {
    /// A command whose handler gets its arguments as one `CommandArguments` value; the catalogue's
    /// argument list is made from the type (see `CommandArguments`), at its first use.
    ///
    ///     Command("score", summary: "Enter a score", arguments: Score.self) { plugin, score, call in … }
    public init<A: CommandArguments>(_ name: String, summary: String, help: String? = nil, arguments type: A.Type,
                                     longRunning: Bool = false, concurrent: Bool = false, reply: String? = nil,
                                     examples: [String] = [], handler: @escaping @Sendable (P, A, Invocation) throws -> Reply) {
        let typed = LazyArgumentShape(A.self)
        self.init(CommandDeclaration(name, summary: summary, help: help, longRunning: longRunning, concurrent: concurrent,
                                     reply: reply, examples: examples), typed: typed) { plugin, call in
            try handler(plugin, try call.arguments.decode(A.self, flags: typed.shape.flags), call)
        }
    }
}

/// A typed command's `ArgumentShape`, made from its type the first time it is needed (the catalogue,
/// or the command's first call) and kept: reflecting a type instantiates its metadata and runs its
/// `init(from:)`, which a process running one command need not pay for the plugin's others.
/// @unchecked Sendable: `made` is written once, under `mutex`, and read under it; `make` never changes.
final class LazyArgumentShape: @unchecked Sendable {
    private let make: @Sendable () -> ArgumentShape
    private var made: ArgumentShape?
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)

    init<A: CommandArguments>(_ type: A.Type) {
        make = { ArgumentShape.of(A.self) }
        pthread_mutex_init(mutex, nil)
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    var shape: ArgumentShape {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        if let made { return made }
        let shape = make()
        made = shape
        return shape
    }
}

/// A property type the reflection cannot turn into an argument: ends the reflection.
private struct ShapeProblem: Error {
    let text: String
}

/// What the reflecting decoder was asked for, in order.
private final class FieldRecorder {
    struct Field {
        var name: String
        var kind: ArgumentKind
        var optional: Bool
        var choices: [String]
        var typeName: String
    }

    var fields: [Field] = []
    var problems: [String] = []

    func record(_ name: String, _ kind: ArgumentKind, optional: Bool, choices: [String] = [], typeName: String) {
        if fields.contains(where: { $0.name == name }) {
            problems.append("property '\(name)' is decoded twice")
            return
        }
        fields.append(Field(name: name, kind: kind, optional: optional, choices: choices, typeName: typeName))
    }
}

/// Answers every key of the top-level struct with a placeholder and records the question.
private struct ReflectingDecoder: Decoder {
    let recorder: FieldRecorder
    var codingPath: [any CodingKey] { [] }
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        KeyedDecodingContainer(Keyed<Key>(recorder: recorder))
    }
    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        throw ShapeProblem(text: "arguments decode as a struct of named properties, not a list")
    }
    func singleValueContainer() throws -> any SingleValueDecodingContainer {
        throw ShapeProblem(text: "arguments decode as a struct of named properties, not a single value")
    }

    struct Keyed<Key: CodingKey>: KeyedDecodingContainerProtocol {
        let recorder: FieldRecorder
        var codingPath: [any CodingKey] { [] }
        var allKeys: [Key] { [] }

        func contains(_ key: Key) -> Bool { true }
        func decodeNil(forKey key: Key) throws -> Bool { false }

        func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool { try placeholder(Bool.self, key, optional: false) }
        func decode(_ type: String.Type, forKey key: Key) throws -> String { try placeholder(String.self, key, optional: false) }
        func decode(_ type: Double.Type, forKey key: Key) throws -> Double { try placeholder(Double.self, key, optional: false) }
        func decode(_ type: Int.Type, forKey key: Key) throws -> Int { try placeholder(Int.self, key, optional: false) }
        func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T { try placeholder(T.self, key, optional: false) }

        func decodeIfPresent(_ type: Bool.Type, forKey key: Key) throws -> Bool? { try placeholder(Bool.self, key, optional: true) }
        func decodeIfPresent(_ type: String.Type, forKey key: Key) throws -> String? { try placeholder(String.self, key, optional: true) }
        func decodeIfPresent(_ type: Double.Type, forKey key: Key) throws -> Double? { try placeholder(Double.self, key, optional: true) }
        func decodeIfPresent(_ type: Int.Type, forKey key: Key) throws -> Int? { try placeholder(Int.self, key, optional: true) }
        func decodeIfPresent<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T? { try placeholder(T.self, key, optional: true) }

        /// Records `key` as an argument of the kind `T` stands for and returns a value of `T`.
        private func placeholder<T: Decodable>(_ type: T.Type, _ key: Key, optional: Bool) throws -> T {
            let name = key.stringValue
            func record(_ kind: ArgumentKind, _ value: Any, choices: [String] = []) throws -> T {
                recorder.record(name, kind, optional: optional, choices: choices, typeName: "\(T.self)")
                guard let typed = value as? T else { throw ShapeProblem(text: "property '\(name)': no placeholder of type \(T.self)") }
                return typed
            }
            if T.self == String.self { return try record(.string, "") }
            if T.self == Int.self { return try record(.integer, 0) }
            if T.self == Double.self { return try record(.number, 0.0) }
            if T.self == ArgumentDecimal.self { return try record(.number, ArgumentDecimal("0", value: 0)) }
            if T.self == Bool.self { return try record(.flag, false) }
            if T.self == [String].self { return try record(.list, [String]()) }
            if T.self == ArgumentPoint.self { return try record(.point, ArgumentPoint(x: 0, y: 0)) }
            if T.self == JSONValue.self { return try record(.json, JSONValue.null) }
            if let choice = T.self as? any ArgumentChoice.Type {
                guard let first = choice.firstChoice else {
                    throw ShapeProblem(text: "property '\(name)': \(T.self) has no cases to choose from")
                }
                return try record(.choice, first, choices: choice.choiceNames)
            }
            throw ShapeProblem(text: "property '\(name)' has type \(T.self), which no argument kind takes "
                + "(String, Int, Double, ArgumentDecimal, Bool, [String], an ArgumentChoice enum, ArgumentPoint or JSONValue)")
        }

        func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type,
                                                   forKey key: Key) throws -> KeyedDecodingContainer<NestedKey> {
            throw ShapeProblem(text: "property '\(key.stringValue)': arguments are not nested")
        }
        func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
            throw ShapeProblem(text: "property '\(key.stringValue)': arguments are not nested")
        }
        func superDecoder() throws -> any Decoder { throw ShapeProblem(text: "arguments have no superclass") }
        func superDecoder(forKey key: Key) throws -> any Decoder { throw ShapeProblem(text: "arguments have no superclass") }
    }
}
