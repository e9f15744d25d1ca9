// `clubhouse plugin new NAME --lang c|swift`: writes a plugin project that builds, validates and
// runs as written. The C project builds against the installed SDK (`pkg-config --cflags
// clubhouse`, scripts/install.sh) and reads its arguments and writes its reply with the SDK's
// clubhouse_helpers.h; the Swift project depends by path on the Swift SDK installed beside
// clubhouse (SwiftSDK.swift; `--sdk PATH` names another, or a checkout) and states and checks the
// exact toolchain it must be built by (Swift has no stable ABI on Linux: a Swift plugin runs on the
// host's Swift runtime, so it must be built by the same compiler as the host).
// Every file is written under a hidden folder first and the folder renamed at the end: a failure
// leaves nothing behind.

import ClubhouseHost
import ClubhouseABI
import ClubhousePlatform
import ClubhouseJSON
#if canImport(Glibc)
import Glibc
#endif

enum PluginNew {
    static func failure(_ message: String, _ status: Status = .error) -> CLIError { CLIError(status: status, message: message) }

    /// NAME: lowercase letters, digits and '-', starting with a letter (it becomes a folder, the
    /// plugin's name at a site and part of its id).
    static func isValidName(_ name: String) -> Bool {
        guard let first = name.utf8.first, first >= 97, first <= 122, name.utf8.count <= 40 else { return false }
        return name.utf8.allSatisfy { ($0 >= 97 && $0 <= 122) || ($0 >= 48 && $0 <= 57) || $0 == 45 } && !name.hasSuffix("-")
    }

    static func run(name: String, lang: String, dir: String?, sdk: String?, _ options: GlobalOptions) throws(CLIError) -> Int32 {
        guard isValidName(name) else {
            throw failure("'\(name)' cannot name a plugin; use lowercase letters, digits and '-', starting with a letter (e.g. swing-speed)", .invalidArgument)
        }
        let parent = FileSystem.absolute(dir ?? ".")
        guard FileSystem.isDirectory(parent) else { throw failure("\(parent) is not a directory; create it or give another --dir", .invalidArgument) }
        let target = parent + "/" + name
        guard !FileSystem.exists(target) else {
            throw failure("\(target) already exists; choose another name or remove it first", .invalidArgument)
        }
        let files: [(String, String)]
        switch lang {
        case "c": files = cProject(name)
        case "swift":
            let found = try SwiftSDK.locate(given: sdk)
            files = swiftProject(name, sdk: found.path, identity: found.identity)
        default:
            throw failure("--lang must be c or swift, got '\(lang)'", .invalidArgument)
        }
        let work = "\(parent)/.\(name).new-\(getpid())"
        PluginPackages.removeTree(work)
        do throws(CLIError) {
            for (relative, text) in files {
                let path = work + "/" + relative
                do { try FileSystem.createDirectory(FileSystem.directoryName(path)) } catch {
                    throw failure("\(FileSystem.directoryName(path)): cannot create (\(error.reason)); nothing was written")
                }
                if let reason = PluginPackages.writeDurably(path, Array(text.utf8), mode: 0o644) {
                    throw failure("\(path): cannot write (\(reason)); nothing was written")
                }
            }
            guard rename(work, target) == 0 else {
                throw failure("\(target): cannot create (\(String(cString: strerror(errno)))); nothing was written")
            }
        } catch {
            PluginPackages.removeTree(work)
            throw error
        }
        let next = lang == "c"
            ? "cd \(name) && make && clubhouse plugin validate ./lib\(name).so && clubhouse --config plugins.json \(name) greet Ada"
            : "cd \(name) && swift build && clubhouse plugin validate .build/debug/lib\(typeName(name))Plugin.so && clubhouse --config plugins.json \(name) greet Ada"
        BuiltinCommands.output(options, json: ["path": .string(target), "lang": .string(lang), "files": .array(files.map { .string($0.0) })],
                               text: "Created \(target) (\(files.map(\.0).joined(separator: ", ")))\nNext: \(next)\n")
        return 0
    }

    /// "swing-speed" → "SwingSpeed".
    static func typeName(_ name: String) -> String {
        name.split(separator: "-").map { $0.prefix(1).uppercased() + $0.dropFirst() }.joined()
    }

    static func cIdentifier(_ name: String) -> String { name.replacing("-", with: "_") }

    // MARK: C

    static func cProject(_ name: String) -> [(String, String)] {
        let c = cIdentifier(name)
        let source = #"""
        /*
         * The __NAME__ plugin for Clubhouse, in C against the installed SDK:
         *   make                                   (cc $(pkg-config --cflags clubhouse) ...)
         *   clubhouse plugin validate ./lib__NAME__.so
         *   clubhouse --config plugins.json __NAME__ greet Ada --times 2
         * clubhouse.h is the contract; clubhouse_helpers.h reads arguments and writes replies.
         */
        #include <clubhouse.h>
        #include <clubhouse_helpers.h>

        #include <stdio.h>
        #include <string.h>

        static clubhouse_status __C___describe(const clubhouse_plugin_descriptor *self, const clubhouse_reply *reply) {
            (void)self;
            static const char catalogue[] =
                "{\"commands\":[{\"name\":\"greet\",\"summary\":\"Greet someone\",\"reply\":\"{greeting, times}\",\"arguments\":["
                "{\"name\":\"name\",\"type\":\"string\",\"positional\":true,\"default\":\"world\",\"help\":\"who to greet\"},"
                "{\"name\":\"times\",\"type\":\"integer\",\"default\":1,\"help\":\"how many times (1-10)\"},"
                "{\"name\":\"loud\",\"type\":\"flag\",\"help\":\"shout\"}],"
                "\"examples\":[\"greet Ada --times 2\",\"greet --loud\"]}]}";
            reply->write(reply, catalogue, sizeof catalogue - 1);
            return CLUBHOUSE_OK;
        }

        typedef struct { const clubhouse_host *host; } __C__;

        static clubhouse_status __C___create(const clubhouse_plugin_descriptor *self, const clubhouse_host *host, void **instance,
                                             const clubhouse_reply *reply) {
            (void)self; (void)reply;
            static __C__ the_instance;
            the_instance.host = host;
            *instance = &the_instance;
            return CLUBHOUSE_OK;
        }

        static void __C___destroy(const clubhouse_plugin_descriptor *self, void *instance) { (void)self; (void)instance; }

        static clubhouse_status __C___greet(const clubhouse_args *args, const clubhouse_reply *reply) {
            char name[128] = "world";
            long long times = 1;
            int loud = 0;
            if (clubhouse_args_string(args, "name", name, sizeof name) < 0)
                return clubhouse_reply_error(reply, CLUBHOUSE_INVALID_ARGUMENT, "the name is too long; give at most 127 bytes");
            if (clubhouse_args_int(args, "times", &times) < 0 || times < 1 || times > 10)
                return clubhouse_reply_error(reply, CLUBHOUSE_INVALID_ARGUMENT, "--times must be an integer from 1 to 10");
            clubhouse_args_bool(args, "loud", &loud);
            char greeting[160];
            snprintf(greeting, sizeof greeting, loud ? "HELLO, %s!" : "Hello, %s!", name);
            char text[2048] = "";
            for (long long i = 0; i < times; i++) {
                strncat(text, greeting, sizeof text - strlen(text) - 2);
                strcat(text, "\n");
            }
            clubhouse_writer w;
            clubhouse_reply_begin(&w, reply);
            clubhouse_reply_string(&w, "greeting", greeting);
            clubhouse_reply_int(&w, "times", times);
            clubhouse_reply_end(&w, text);
            return CLUBHOUSE_OK;
        }

        static clubhouse_status __C___invoke(const clubhouse_plugin_descriptor *self, void *instance, const clubhouse_call *call,
                                             const char *command, const char *request, size_t length, const clubhouse_reply *reply) {
            (void)self; (void)instance; (void)call;
            clubhouse_args args;
            if (clubhouse_args_init(&args, request, length) != 0)
                return clubhouse_reply_error(reply, CLUBHOUSE_INVALID_ARGUMENT, "the request is not a JSON object");
            if (strcmp(command, "greet") == 0) return __C___greet(&args, reply);
            return clubhouse_reply_error(reply, CLUBHOUSE_NOT_FOUND, "unknown command (clubhouse __NAME__ --help lists them)");
        }

        static const char *const services[] = {NULL};

        /* magic, ABI and size come from the header (CLUBHOUSE_DESCRIPTOR_INIT), so does the build string. */
        static const clubhouse_plugin_descriptor descriptor = {
            CLUBHOUSE_DESCRIPTOR_INIT,
            .id = "org.example.__NAME__", .version = "0.1.0", .name = "__NAME__",
            .summary = "Greets people (made by clubhouse plugin new)",
            .build = CLUBHOUSE_BUILD_C,
            .services = services,
            .describe = __C___describe, .create = __C___create, .destroy = __C___destroy, .invoke = __C___invoke,
        };

        /* The one exported symbol (the Makefile builds with -fvisibility=hidden). */
        CLUBHOUSE_DEFINE_ENTRY(descriptor)

        """#
        let makefile = """
        # Builds lib\(name).so against the installed Clubhouse SDK (scripts/install.sh PREFIX puts
        # clubhouse.pc in PREFIX/lib/pkgconfig: set PKG_CONFIG_PATH when PREFIX is not a system one).
        CC ?= cc
        CFLAGS ?= -O2 -Wall -Wextra
        CLUBHOUSE_CFLAGS := $(shell pkg-config --cflags clubhouse)

        lib\(name).so: \(name).c
        \t$(CC) -shared -fPIC -fvisibility=hidden -std=c99 $(CFLAGS) $(CLUBHOUSE_CFLAGS) \(name).c -o lib\(name).so

        check: lib\(name).so
        \tclubhouse plugin validate ./lib\(name).so
        \tclubhouse --config plugins.json \(name) greet Ada

        clean:
        \trm -f lib\(name).so

        .PHONY: check clean

        """
        return [("\(name).c", source.replacing("__NAME__", with: name).replacing("__C__", with: c)),
                ("Makefile", makefile), ("plugins.json", sitesFile(name, path: "lib\(name).so")),
                ("README.md", readme(name, build: "make", library: "./lib\(name).so"))]
    }

    static func sitesFile(_ name: String, path: String) -> String {
        """
        {
          "sites": {
            "dev": {
              "description": "Where \(name) runs while you write it",
              "plugins": {
                "\(name)": {"path": "\(path)", "isolation": "process"}
              }
            }
          }
        }

        """
    }

    static func readme(_ name: String, build: String, library: String) -> String {
        """
        # \(name)

        A Clubhouse plugin made by `clubhouse plugin new`.

        ```sh
        \(build)
        clubhouse plugin validate \(library)
        clubhouse --config plugins.json \(name) greet Ada --times 2
        clubhouse plugin pack \(library) --out \(name)-0.1.0.chpkg   # then: clubhouse plugin install \(name)-0.1.0.chpkg
        ```

        `plugins.json` runs the plugin in a child process (`"isolation": "process"`), so a crash while
        you work on it cannot take the host down.

        """
    }

    // MARK: Swift

    /// How a Swift plugin links, as the bundled ones do (Package.swift's `pluginLinkerSettings`): the
    /// toolchain's lld, its own symbols bound first, packed relative relocations, and the entry as its
    /// only export (`exports.map`, written beside the manifest). Each makes its `dlopen` cheaper.
    static let linkerFlags = #"["-use-ld=lld", "-Xlinker", "-Bsymbolic", "-Xlinker", "-z", "-Xlinker", "pack-relative-relocs", "#
        + #""-Xlinker", "--version-script=\(Context.packageDirectory)/exports.map"]"#

    /// The linker version script of a plugin: its entry is its one exported symbol (the same as
    /// PluginSDK/exports.map, which the bundled plugins link with).
    static let exportsMap = """
        /* A Clubhouse plugin exports one symbol, its entry: the host looks up nothing else. Everything
           else the plugin defines stays inside the library (Package.swift links with this file). */
        {
          global: clubhouse_plugin_entry;
          local: *;
        };

        """

    static func swiftProject(_ name: String, sdk: String, identity: String) -> [(String, String)] {
        let type = typeName(name)
        let manifest = """
        // swift-tools-version:6.0
        // The \(name) plugin for Clubhouse, built against the Clubhouse Swift SDK at \(sdk).
        import PackageDescription

        \(SwiftSDK.toolchainCheck(what: "The \(name) plugin"))

        let package = Package(
            name: "\(name)",
            products: [.library(name: "\(type)Plugin", type: .dynamic, targets: ["\(type)Plugin"])],
            dependencies: [.package(path: "\(sdk)")],
            targets: [
                .target(name: "\(type)Plugin",
                        dependencies: [.product(name: "PluginKit", package: "\(identity)")],
                        path: "Sources/\(type)Plugin",
                        linkerSettings: [.unsafeFlags(\(linkerFlags))]),
            ]
        )

        """
        let source = """
        // The \(name) plugin: one command, greet. PluginKit turns clubhouse.h into ordinary Swift.

        import CClubhouse
        import ClubhouseJSON
        import PluginKit

        final class \(type): Plugin {
            static let info = PluginInfo(id: "org.example.\(name)", version: "0.1.0", name: "\(name)",
                                         summary: "Greets people (made by clubhouse plugin new)", services: [.log, .config])

            static let commands: [Command<\(type)>] = [
                Command("greet", summary: "Greet someone",
                        arguments: [.string("name", help: "who to greet", positional: true, default: "world"),
                                    .integer("times", help: "how many times (1-10)", default: 1),
                                    .flag("loud", help: "shout")],
                        reply: "{greeting, times}",
                        examples: ["greet Ada --times 2", "greet --loud"]) { _, call in
                    let name = try call.arguments.string("name")
                    let times = try call.arguments.int("times")
                    guard (1...10).contains(times) else { throw PluginError.invalidArgument("--times must be an integer from 1 to 10") }
                    var greeting = "Hello, \\(name)!"
                    if call.arguments.flag("loud") { greeting = greeting.uppercased() }
                    let text = String(repeating: greeting + "\\n", count: times)
                    return Reply(data: ["greeting": .string(greeting), "times": .int(times)], text: text)
                },
            ]

            init(context: PluginContext) throws {}
        }

        @_cdecl("clubhouse_plugin_entry")
        public func clubhousePluginEntry(_ info: UnsafePointer<clubhouse_host_info>?) -> UnsafePointer<clubhouse_plugin_descriptor>? {
            export(\(type).self, info)
        }

        """
        let toolchain = """
        Build it with Swift \(SwiftSDK.compiler) for \(BuildFingerprint.target), the toolchain that built the clubhouse
        it runs in (`clubhouse --version` prints it; `swift --version` shows yours). A Swift
        plugin runs on the host's Swift runtime and Swift has no stable ABI on Linux: `Package.swift`
        stops any other compiler with a message saying so, and `clubhouse plugin validate` refuses a
        library built by one. It depends on the Clubhouse Swift SDK at `\(sdk)`.

        """
        return [("Package.swift", manifest), ("exports.map", exportsMap), ("Sources/\(type)Plugin/\(type).swift", source),
                ("plugins.json", sitesFile(name, path: ".build/debug/lib\(type)Plugin.so")),
                ("README.md", readme(name, build: "swift build", library: ".build/debug/lib\(type)Plugin.so") + toolchain)]
    }
}
