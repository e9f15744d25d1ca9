// Benchmarks for the practice area (Benchmarks/practice/run.sh runs them beside the Python peers).
//
//   clubhouse-bench practice hashes FILE [--profile P]        one hash per JSON line (to diff with a peer)
//   clubhouse-bench practice jcs FILE [--profile P] [--repeat N] [--threads T]   docs/s of parse+canonicalize+SHA-256
//                                                                 (one thread unless --threads)
//   clubhouse-bench practice sha256 FILE [--repeat N]         MB/s of SHA-256, both engines
//   clubhouse-bench practice import [--shots N] [--repeat N]  generate an MLM2PRO file, then parse+grade it
//   clubhouse-bench practice generate --out FILE [--shots N]  write that file (for timing `clubhouse practice import`)

import ClubhouseJSON
import Foundation
import PracticeCore
import ClubhouseHashing

func practiceBench(_ arguments: [String]) {
    var positional: [String] = []
    var options: [String: String] = [:]
    var i = 0
    while i < arguments.count {
        let a = arguments[i]
        if a.hasPrefix("--"), i + 1 < arguments.count {
            options[String(a.dropFirst(2))] = arguments[i + 1]
            i += 2
        } else {
            positional.append(a)
            i += 1
        }
    }
    let repeatCount = Int(options["repeat"] ?? "") ?? 5
    let profile = CanonicalProfile(rawValue: options["profile"] ?? "rfc8785") ?? .rfc8785
    switch positional.first {
    case "hashes":
        guard positional.count > 1 else { return usage() }
        printHashes(path: positional[1], profile: profile)
    case "jcs":
        guard positional.count > 1 else { return usage() }
        benchJCS(path: positional[1], profile: profile, repeatCount: repeatCount, threads: Int(options["threads"] ?? "") ?? 1)
    case "sha256":
        guard positional.count > 1 else { return usage() }
        benchSHA256(path: positional[1], repeatCount: repeatCount)
    case "import":
        benchImport(shots: Int(options["shots"] ?? "") ?? 100_000, repeatCount: repeatCount)
    case "generate":
        guard let out = options["out"] else { return usage() }
        let csv = benchmarkExport(shots: Int(options["shots"] ?? "") ?? 100_000)
        guard FileManager.default.createFile(atPath: out, contents: Data(csv)) else {
            print("cannot write \(out)")
            exit(1)
        }
        print("wrote \(out): \(csv.count) bytes")
    default:
        usage()
    }
}

private func usage() {
    print("usage: clubhouse-bench practice hashes|jcs|sha256 FILE [--profile raid-v2|rfc8785] [--repeat N]")
    print("       clubhouse-bench practice import [--shots N] [--repeat N]")
    print("       clubhouse-bench practice generate --out FILE [--shots N]")
}

private func readFile(_ path: String) -> [UInt8] {
    guard let data = FileManager.default.contents(atPath: path) else {
        print("cannot read \(path)")
        exit(1)
    }
    return [UInt8](data)
}

/// CPU time of this process: steadier than wall time on a shared machine.
private func cpuNow() -> Double {
    var t = timespec()
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t)
    return Double(t.tv_sec) + Double(t.tv_nsec) / 1e9
}

private func printHashes(path: String, profile: CanonicalProfile) {
    let input = readFile(path)
    do {
        let result = try CanonicalCommands.hash(HashRequest(profile: profile, input: input, sourceName: path, jsonLines: true))
        print(result.text)
    } catch {
        print("ERROR \(error)")
    }
}

/// The `practice hash --jsonl` loop without process start: split, parse, canonicalize, hash, hex.
private func benchJCS(path: String, profile: CanonicalProfile, repeatCount: Int, threads: Int) {
    let input = readFile(path)
    var times: [Double] = []
    var cpuTimes: [Double] = []
    var documents = 0
    var errors = 0
    for _ in 0..<repeatCount {
        let t0 = Measure.now(), c0 = cpuNow()
        let result = try? CanonicalCommands.hash(HashRequest(profile: profile, input: input, sourceName: path, jsonLines: true,
                                                             threads: threads))
        times.append(Measure.now() - t0)
        cpuTimes.append(cpuNow() - c0)
        documents = result?.documents.count ?? 0
        errors = result?.errorCount ?? -1
    }
    let t = Measure.median(times), c = Measure.median(cpuTimes)
    print(String(format: "practice jcs profile=%@ threads=%d docs=%d errors=%d input_bytes=%d median=%.1f ms (cpu %.1f ms)  %.0f docs/s  %.2f MB/s (input)",
                 profile.rawValue, threads, documents, errors, input.count, t * 1e3, c * 1e3, Double(documents) / t,
                 Double(input.count) / t / 1e6))
}

private func benchSHA256(path: String, repeatCount: Int) {
    let input = readFile(path)
    for engine in SHA256.Engine.allCases {
        if engine == .hardware && !SHA256.Engine.hardwareAvailable {
            print("practice sha256 engine=hardware unavailable on this CPU")
            continue
        }
        var times: [Double] = []
        var hex = ""
        for _ in 0..<repeatCount {
            let t0 = Measure.now()
            hex = SHA256.hash(input, engine: engine).hex
            times.append(Measure.now() - t0)
        }
        let t = Measure.median(times)
        print(String(format: "practice sha256 engine=%@ bytes=%d median=%.1f ms  %.0f MB/s  %@",
                     engine.rawValue, input.count, t * 1e3, Double(input.count) / t / 1e6, hex))
    }
}

/// Import of a generated MLM2PRO file: the Core part of `practice import` (read the CSV, parse,
/// grade every club with its template, build the session batch) into an in-memory store. The
/// SQLite writes are measured with the adapter.
/// A generated MLM2PRO export of `shots` shots over the eight clubs the generator knows.
private func benchmarkExport(shots: Int) -> [UInt8] {
    let clubs = SessionGenerator.ClubProfile.all.map(\.club)
    let perClub = shots / clubs.count
    var plan = clubs.map { (club: $0, shots: perClub) }
    plan[0].shots += shots - perClub * clubs.count
    return SessionGenerator.csv(.init(seed: 100_000, clubs: plan, sessionName: "Benchmark"))
}

private func benchImport(shots: Int, repeatCount: Int) {
    let t0 = Measure.now()
    let csv = benchmarkExport(shots: shots)
    let generated = Measure.now() - t0
    print(String(format: "practice import: generated %d shots, %.1f MB in %.0f ms", shots, Double(csv.count) / 1e6, generated * 1e3))
    var parseTimes: [Double] = []
    var importTimes: [Double] = []
    var cpuTimes: [Double] = []
    for i in 0..<repeatCount {
        let p0 = Measure.now()
        let export = try? RapsodoParser.parse(csv, sourceName: "bench.csv")
        parseTimes.append(Measure.now() - p0)
        guard export?.shots.count == shots else { print("parse failed"); exit(1) }
        let store = InMemoryPracticeStore()
        let library = TemplateLibrary(store: store, now: { "2026-01-01T00:00:00Z" })
        let i0 = Measure.now(), c0 = cpuNow()
        do {
            let result = try SessionImporter(library: library).run(ImportRequest(csv: csv, sourceName: "bench-\(i).csv"))
            guard result.session.shotCount == shots else { print("import lost shots"); exit(1) }
        } catch {
            print("import failed: \(error)")
            exit(1)
        }
        importTimes.append(Measure.now() - i0)
        cpuTimes.append(cpuNow() - c0)
    }
    print(String(format: "practice import shots=%d bytes=%d parse median=%.0f ms; parse+grade+batch median=%.0f ms (cpu %.0f ms)  %.0f shots/s",
                 shots, csv.count, Measure.median(parseTimes) * 1e3, Measure.median(importTimes) * 1e3, Measure.median(cpuTimes) * 1e3,
                 Double(shots) / Measure.median(importTimes)))
}
