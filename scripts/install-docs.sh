#!/bin/sh
# Installs the documentation under PREFIX so that every file it names is there, at the path it
# names (scripts/install.sh runs it; InstalledDocsEndToEndTests walks every link and path):
#
#   PREFIX/share/doc/clubhouse/README.md, PLUGIN-SDK.md, SECURITY.md, RELIABILITY.md, BENCHMARKS.md,
#     JSON-RPC.md (and every other Host/*.md, eg HTTP.md), services/*.md, plugins/<Plugin>/README.md
#   PREFIX/share/doc/clubhouse/examples/   the example plugins and the service pages' examples
#   PREFIX/share/doc/clubhouse/source/     any other file of the repository a page cites (the tests
#                                          and sources SECURITY.md names as evidence, …), copied as is
#
# Each page is copied with the paths it names rewritten to where the files are in the prefix: a
# Markdown link becomes a relative link to the installed file; a path in `code` becomes the
# installed file's absolute path (eg `Sources/CClubhouse/include/clubhouse.h` in PLUGIN-SDK.md
# becomes `PREFIX/include/clubhouse/clubhouse.h`). Fenced code blocks are left as written (they are
# commands and code, run where they say). A name that is no file of the repository (`tour/x.json`,
# `/etc/passwd`) is left alone.
#
# Usage: scripts/install-docs.sh ROOT PREFIX   (both absolute)
set -eu

[ $# -eq 2 ] || { echo "usage: scripts/install-docs.sh ROOT PREFIX" >&2; exit 2; }
ROOT=$(realpath "$1")
PREFIX=$2
DOC=share/doc/clubhouse
WORK=$(mktemp -d "${TMPDIR:-/tmp}/clubhouse-docs.XXXXXX")
trap 'rm -rf "$WORK"' EXIT

# Where a file of the repository goes in the prefix (relative to PREFIX), given its repository path.
installed_path() {
    case "$1" in
        README.md|SECURITY.md|RELIABILITY.md|BENCHMARKS.md) echo "$DOC/$1" ;;
        PluginSDK/README.md) echo "$DOC/PLUGIN-SDK.md" ;;
        Host/*.md) echo "$DOC/${1#Host/}" ;;
        PluginSDK/docs/services/*) echo "$DOC/services/${1#PluginSDK/docs/services/}" ;;
        PluginSDK/docs/services) echo "$DOC/services" ;;
        Plugins/Examples/*) echo "$DOC/examples/${1#Plugins/Examples/}" ;;
        Plugins/*/README.md) echo "$DOC/plugins/${1#Plugins/}" ;;
        Tests/Fixtures/service-examples/*) echo "$DOC/examples/services/${1#Tests/Fixtures/service-examples/}" ;;
        Tests/PluginKitTests/ServiceExamples/*) echo "$DOC/examples/services/${1#Tests/PluginKitTests/ServiceExamples/}" ;;
        PluginSDK/Sources/CClubhouse/include/clubhouse.h) echo "include/clubhouse/clubhouse.h" ;;
        PluginSDK/Sources/CClubhouse/include/clubhouse) echo "include/clubhouse/clubhouse" ;;
        PluginSDK/Sources/CClubhouse/include/clubhouse/*) echo "include/clubhouse/${1#PluginSDK/Sources/CClubhouse/include/}" ;;
        PluginSDK/Sources/CClubhouse/include) echo "include/clubhouse" ;;
        PluginSDK/C/clubhouse_helpers.h) echo "include/clubhouse/clubhouse_helpers.h" ;;
        PluginSDK/plugins.schema.json) echo "share/clubhouse/plugins.schema.json" ;;
        Plugins/Tennis/drill.schema.json) echo "share/clubhouse/drill.schema.json" ;;
        PluginSDK/Sources/*)
            # The Swift SDK's modules (install.sh put them there first); another module's source is cited.
            if [ -e "$PREFIX/share/clubhouse/PluginSDK/${1#PluginSDK/}" ]; then echo "share/clubhouse/PluginSDK/${1#PluginSDK/}"
            else echo "$DOC/source/$1"; fi ;;
        PluginSDK) echo "share/clubhouse/PluginSDK" ;;
        *) echo "$DOC/source/$1" ;;
    esac
}

# The pages: repository path, one per line.
{
    for page in README.md SECURITY.md RELIABILITY.md BENCHMARKS.md PluginSDK/README.md; do
        [ -f "$ROOT/$page" ] && echo "$page"
    done
    (cd "$ROOT" && for page in Host/*.md PluginSDK/docs/services/*.md Plugins/*/README.md; do [ -f "$page" ] && echo "$page"; done)
} > "$WORK/pages"

# put SOURCE DEST: copy beside, then rename over (a reader never sees half a file).
put() {
    mkdir -p "$(dirname "$2")"
    cp "$1" "$2.tmp-$$"
    chmod 644 "$2.tmp-$$"
    mv -f "$2.tmp-$$" "$2"
}

# The candidate names of a page, one per line as KIND<TAB>NAME: "link" for a Markdown link target,
# "code" for an inline code span that is one relative path with a folder in it (`plugins.json` alone
# is the name of a kind of file, not a path), "word" for such a path to a page, schema, header or
# source file written inside a fenced block (commands there are left alone: `scripts/install.sh`).
candidates() {
    awk '
        /^[ \t]*```/ { fenced = !fenced; next }
        fenced {
            n = split($0, words, /[ \t"'"'"'(),;:<>=]+/)
            for (i = 1; i <= n; i++)
                if (words[i] ~ /^[A-Za-z0-9_][A-Za-z0-9_.\/-]*\/[A-Za-z0-9_.-]+\.(md|json|h|c|swift)$/) print "word\t" words[i]
            next
        }
        {
            line = $0
            while (match(line, /\]\([^) \t]+\)/)) {
                print "link\t" substr(line, RSTART + 2, RLENGTH - 3)
                line = substr(line, RSTART + RLENGTH)
            }
            line = $0
            while (match(line, /`[^`]+`/)) {
                word = substr(line, RSTART + 1, RLENGTH - 2)
                if (word ~ /^[A-Za-z0-9_.][A-Za-z0-9_.\/-]*$/ && word ~ /\//) print "code\t" word
                line = substr(line, RSTART + RLENGTH)
            }
        }' "$1" | sort -u
}

# The repository's files, one per line (git's list; without git, every file but build products).
if ! git -C "$ROOT" ls-files > "$WORK/files" 2>/dev/null; then
    (cd "$ROOT" && find . -name .build -prune -o -name .git -prune -o -type f -print | sed 's|^\./||') > "$WORK/files"
fi

# The repository path NAME (relative to the page's folder, else to the root, else the one file of
# the repository whose path ends in /NAME: `Server/StdioRelay.swift`) stands for, or nothing.
resolve() {
    dir=$1
    name=$2
    for base in "$ROOT/$dir" "$ROOT"; do
        full=$(realpath -m "$base/$name")
        case "$full" in
            "$ROOT"/*) ;;
            *) continue ;;
        esac
        relative=${full#"$ROOT"/}
        case "/$relative/" in */.build/*|*/.git/*) continue ;; esac
        if [ -e "$full" ]; then
            echo "$relative"
            return
        fi
    done
    case "$name" in */*) ;; *) return ;; esac
    case "$name" in /*|../*|./*) return ;; esac
    tails=$(grep -F -- "/$name" "$WORK/files" | awk -v tail="/$name" 'substr($0, length($0) - length(tail) + 1) == tail')
    [ -n "$tails" ] && [ "$(printf '%s\n' "$tails" | wc -l)" -eq 1 ] && echo "$tails"
    return 0
}

# cite REPOSITORY-PATH: installs a cited file (or folder) under the documentation folder (pages are
# installed by the loop below, rewritten; the headers, schemas and the Swift SDK by install.sh).
cite() {
    target=$(installed_path "$1")
    case "$target" in "$DOC/"*) ;; *) return ;; esac
    grep -qxF "$1" "$WORK/pages" && return
    if [ -d "$ROOT/$1" ]; then
        (cd "$ROOT" && find "$1" -name .build -prune -o -name .git -prune -o -type f -print) | while read -r file; do
            grep -qxF "$file" "$WORK/pages" || put "$ROOT/$file" "$PREFIX/$(installed_path "$file")"
        done
    else
        put "$ROOT/$1" "$PREFIX/$target"
    fi
}

while read -r page; do
    dir=$(dirname "$page")
    destination=$(installed_path "$page")
    destination_dir=$(dirname "$PREFIX/$destination")
    mkdir -p "$destination_dir"
    : > "$WORK/map"
    candidates "$ROOT/$page" | while IFS="$(printf '\t')" read -r kind name; do
        path=${name%%#*}
        anchor=${name#"$path"}
        [ -n "$path" ] || continue
        case "$path" in /*|*://*|mailto:*) continue ;; esac
        repository=$(resolve "$dir" "$path")
        [ -n "$repository" ] || continue
        where=$(installed_path "$repository")
        cite "$repository"
        if [ "$kind" = link ]; then
            replacement=$(realpath -m --relative-to="$destination_dir" "$PREFIX/$where")$anchor
        else
            replacement=$PREFIX/$where
        fi
        # A folder cited by a code block's word is no page; only files are rewritten there.
        [ "$kind" = word ] && [ -d "$ROOT/$repository" ] && continue
        printf '%s\t%s\t%s\n' "$kind" "$name" "$replacement" >> "$WORK/map"
    done
    # Rewrite the page: exact names inside link targets and code spans, and whole words naming
    # files inside fenced blocks.
    awk -v mapfile="$WORK/map" '
        BEGIN {
            FS = "\t"
            while ((getline entry < mapfile) > 0) {
                split(entry, f, "\t")
                if (f[1] == "link") link[f[2]] = f[3]; else if (f[1] == "code") code[f[2]] = f[3]; else word[f[2]] = f[3]
            }
            FS = " "
        }
        /^[ \t]*```/ { fenced = !fenced; print; next }
        fenced {
            line = $0
            for (name in word) {
                out = ""
                while ((at = index(line, name)) > 0) {
                    before = at > 1 ? substr(line, at - 1, 1) : " "
                    after = substr(line, at + length(name), 1)
                    whole = before !~ /[A-Za-z0-9_.\/-]/ && after !~ /[A-Za-z0-9_\/-]/
                    out = out substr(line, 1, at - 1) (whole ? word[name] : name)
                    line = substr(line, at + length(name))
                }
                line = out line
            }
            print line
            next
        }
        {
            out = ""; line = $0
            while (match(line, /\]\([^) \t]+\)|`[^`]+`/)) {
                token = substr(line, RSTART, RLENGTH)
                out = out substr(line, 1, RSTART - 1)
                if (substr(token, 1, 1) == "]") {
                    name = substr(token, 3, length(token) - 3)
                    if (name in link) token = "](" link[name] ")"
                } else {
                    name = substr(token, 2, length(token) - 2)
                    if (name in code) token = "`" code[name] "`"
                }
                out = out token
                line = substr(line, RSTART + RLENGTH)
            }
            print out line
        }' "$ROOT/$page" > "$WORK/page"
    put "$WORK/page" "$PREFIX/$destination"
done < "$WORK/pages"
