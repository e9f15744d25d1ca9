// TerminalText.plain: the one function that cleans what a plugin wrote before the host prints it
// (the descriptor's name and summary, the catalogue's help, log messages, a runner's standard
// error through StandardErrorRelay). The relay used to clean bytes itself and let C1 controls
// (U+0080–U+009F: U+009B is a CSI on terminals that read 8-bit controls) through.

import ClubhouseLoader
import XCTest

final class TerminalTextTests: XCTestCase {
    func testEveryC0ControlButTabBecomesAQuestionMark() {
        for value in UInt32(0)..<0x20 where value != 0x09 {
            let scalar = Unicode.Scalar(value)!
            XCTAssertEqual(TerminalText.plain("a\(Character(scalar))b"), "a?b", "U+\(String(value, radix: 16))")
        }
        XCTAssertEqual(TerminalText.plain("a\tb"), "a\tb")
        XCTAssertEqual(TerminalText.plain("a\u{7F}b"), "a?b", "DEL")
    }

    func testEveryC1ControlBecomesAQuestionMark() {
        for value in UInt32(0x80)...0x9F {
            let scalar = Unicode.Scalar(value)!
            XCTAssertEqual(TerminalText.plain("a\(Character(scalar))b"), "a?b", "U+\(String(value, radix: 16))")
        }
        // The first printable scalars after C1 pass: no-break space, é, and a wide character.
        XCTAssertEqual(TerminalText.plain("\u{A0}é漢"), "\u{A0}é漢")
    }

    func testEscapeSequencesAndForgedLinesLoseTheirControls() {
        XCTAssertEqual(TerminalText.plain("\u{1B}[2J\u{1B}]0;owned\u{07}\u{9B}31mred"), "?[2J?]0;owned??31mred")
        XCTAssertEqual(TerminalText.plain("fine\n[clubhouse] error: FORGED"), "fine?[clubhouse] error: FORGED")
        XCTAssertEqual(TerminalText.plain("help\nline two", keepNewlines: true), "help\nline two")
        XCTAssertEqual(TerminalText.plain("carriage\rreturn", keepNewlines: true), "carriage?return")
    }

    func testTextWithoutControlsIsReturnedAsItIs() {
        let text = "Putting: best line, 3.2 m — ok"
        XCTAssertEqual(TerminalText.plain(text), text)
    }

    // The fourth outside attack (b09): a stored drill name carrying ESC [ 30 m (black), ESC [ 2 m (dim)
    // or ESC [ 90 m (grey) reached the terminal and was never reset, so every later row and the prompt
    // turned unreadable. Those codes become "?" and no kept style outlives its line.
    func testStoredStylesCannotHideWhatFollows() {
        for code in ["30", "37", "90", "97", "2", "8", "7", "5", "40", "1;30", "38;5;0"] {
            XCTAssertEqual(TerminalText.shown("a\u{1B}[\(code)mb", styled: true), "a?[\(code)mb", code)
        }
        XCTAssertEqual(TerminalText.shown("drill \u{1B}[31mred\nnext row\n", styled: true),
                       "drill \u{1B}[31mred\u{1B}[0m\nnext row\n")
        XCTAssertEqual(TerminalText.shown("x\u{1B}[1;33mtail", styled: true), "x\u{1B}[1;33mtail\u{1B}[0m")
        XCTAssertEqual(TerminalText.shown("a\u{1B}[31mred\r\nb", styled: true), "a\u{1B}[31mred\u{1B}[0m\r\nb")
        // A plugin's own bold header, reset on its line, is printed as it is.
        let header = "\u{1B}[1mName\u{1B}[0m  Balls\nfeed  12\n"
        XCTAssertEqual(TerminalText.shown(header, styled: true), header)
        XCTAssertEqual(TerminalText.shown("a\u{1B}[31mb", styled: false), "a?[31mb")
    }
}
