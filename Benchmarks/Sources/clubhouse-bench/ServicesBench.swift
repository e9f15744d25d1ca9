// Services benchmark (issue 13: one implementation per service, reached through a C face and a
// wire face), release build, everything in one run so the ratios compare like with like:
//  - the machine's pipe round-trip floor (1 byte to /bin/cat and back);
//  - in process: the no-op command round trip (NotesC `ping`, target ≤ 0.5 µs) and one storage
//    call through the C face (`exec("SELECT 1")`, and a prepared `SELECT ?` bound and stepped);
//  - isolated: the no-op round trip (NotesC `ping` in its runner, target ≤ 1.5× the floor) and
//    one storage service call over the wire (`notes list` of 1,000 notes minus `notes list` of
//    none, per row: each row is one `step` service call answered by the storage wire face).
// Usage: clubhouse-bench services [--quick]

import CClubhouse
import ClubhouseFrontEnds
import ClubhouseHost
import ClubhousePlatform
import ClubhouseJSON
#if canImport(Glibc)
import Glibc
#endif

func servicesBench(_ arguments: [String]) {
    let quick = arguments.contains("--quick")
    let dir = Measure.executableDirectory()
    let scratch = "/tmp/clubhouse-services-bench-\(getpid())"
    defer { _ = system("rm -rf '\(scratch)'") }
    // One plugin per site: the same library in process at one site and isolated at the other.
    let config = """
        {"sites": {
          "inproc": {"plugins": {"notes": {"path": "\(dir)/libNotesC.so", "grants": ["storage"], "isolation": "in-process"}}},
          "isolated": {"plugins": {"notes": {"path": "\(dir)/libNotesC.so", "grants": ["storage"], "isolation": "process"}}}
        }}
        """
    guard let (_, configuration) = Measure.scratchConfiguration("services", scratch: scratch, config: config) else { return }
    guard let inSite = configuration.sites["inproc"], let isoSite = configuration.sites["isolated"] else { return }
    let inproc = SiteRuntime(configuration: configuration, site: inSite, dataDirectory: scratch + "/data-in",
                             log: LogBroker(verbosity: 0, color: false))
    let isolated = SiteRuntime(configuration: configuration, site: isoSite, dataDirectory: scratch + "/data-iso",
                               log: LogBroker(verbosity: 0, color: false))
    defer {
        inproc.shutdown()
        isolated.shutdown()
    }
    let samples = quick ? 5 : 21

    print("services: one implementation, two faces (medians of \(samples) batches)")
    let floor = pipeRoundTripFloor(calls: quick ? 200 : 2000, samples: samples)
    if let floor { print("  floor: 1 byte to a child process and back over two pipes (/bin/cat)  \(Measure.format(floor))") }

    func perCall(_ runtime: SiteRuntime, _ command: String, calls: Int) -> Double? {
        guard runtime.routed("notes", command).status == .ok else { return nil }
        // `repeated`: the prepared call lent to the router each time, as a front end runs it (called as
        // `call()`, it was copied and destroyed every time: ≈ 0.2 µs of a call the router does not pay).
        let call = RoutedCall(runtime, "notes", command)
        return Measure.medianSeconds(samples: samples) {
            call.repeated(calls)
        } / Double(calls)
    }

    // `--profile isolated|inproc|list|inproc-list`: that call alone, 200,000 times (100,000 for the list), for `perf record`.
    if let i = arguments.firstIndex(of: "--profile"), i + 1 < arguments.count {
        let (runtime, command, calls) = arguments[i + 1] == "inproc" ? (inproc, "ping", 2_000_000)
            : arguments[i + 1] == "inproc-list" ? (inproc, "list", 500_000)
            : arguments[i + 1] == "list" ? (isolated, "list", 100_000) : (isolated, "ping", 200_000)
        RoutedCall(runtime, "notes", command).repeated(calls)
        return
    }

    // In process.
    if let noop = perCall(inproc, "ping", calls: quick ? 2000 : 20_000) {
        print("  in process   no-op round trip (notes ping)              \(Measure.format(noop))  (target ≤ 0.5 µs)")
    } else {
        print("  in process: notes unavailable")
    }
    do {
        try inproc.withHostStruct(of: "notes") { host in
            guard let raw = host.pointee.get_service(host, CLUBHOUSE_SERVICE_STORAGE) else { return }
            let s = raw.assumingMemoryBound(to: clubhouse_storage_service.self).pointee
            let calls = quick ? 10_000 : 100_000
            let exec = Measure.medianSeconds(samples: samples) {
                for _ in 0..<calls { _ = s.exec(host, "SELECT 1", nil) }
            } / Double(calls)
            var stmt: OpaquePointer?
            _ = s.prepare(host, "SELECT ?", &stmt, nil)
            let step = Measure.medianSeconds(samples: samples) {
                for i in 0..<calls {
                    _ = s.bind_int64(stmt, 1, Int64(i))
                    _ = s.step(stmt)
                    _ = s.column_int64(stmt, 0)
                    _ = s.reset(stmt)
                }
            } / Double(calls)
            // The same loop in CPU time of this thread (the machine is shared: wall time includes waiting for a core).
            let stepCPU = Measure.threadCPUSeconds(samples: samples) {
                for i in 0..<calls {
                    _ = s.bind_int64(stmt, 1, Int64(i))
                    _ = s.step(stmt)
                    _ = s.column_int64(stmt, 0)
                    _ = s.reset(stmt)
                }
            }
            let execCPU = Measure.threadCPUSeconds(samples: samples) {
                for _ in 0..<calls { _ = s.exec(host, "SELECT 1", nil) }
            }
            s.finalize(stmt)
            print("  in process   storage exec(\"SELECT 1\") through the C face  \(Measure.format(exec))  (CPU median \(Measure.format(execCPU.median / Double(calls))), least \(Measure.format(execCPU.least / Double(calls))))")
            print("  in process   storage bind + step + column + reset (C face) \(Measure.format(step))  (CPU median \(Measure.format(stepCPU.median / Double(calls))), least \(Measure.format(stepCPU.least / Double(calls))))")
        }
    } catch {
        print("  in process storage: \(error)")
    }

    // In process, inside a call: what a plugin command's statements pay (the call's own checks, not the
    // plugin's thread outside any call that the loop above measures). Per row of `notes list`, CPU.
    do {
        let rows = quick ? 200 : 1000
        let calls = quick ? 20 : 100
        func listCPU() -> Double? {
            guard inproc.routed("notes", "list").status == .ok else { return nil }
            let call = RoutedCall(inproc, "notes", "list")
            return Measure.threadCPUSeconds(samples: samples) { for _ in 0..<calls { _ = call() } }.median / Double(calls)
        }
        if let empty = listCPU() {
            for i in 0..<rows { _ = inproc.routed("notes", "add", ["text": .string("note \(i)")]) }
            if let full = listCPU() {
                print("  in process   one storage step inside a call (list of \(rows) − list of 0, per row, CPU)  \(Measure.format((full - empty) / Double(rows)))")
                print("  in process   notes list of 0 rows inside a call (CPU)  \(Measure.format(empty))")
            }
        }
    }

    // Isolated.
    if let noop = perCall(isolated, "ping", calls: quick ? 200 : 2000) {
        let ratio = floor.map { String(format: "  %.2f× the floor", noop / $0) } ?? ""
        print("  isolated     no-op round trip (notes ping)              \(Measure.format(noop))\(ratio)  (target ≤ 1.5×)")
    } else {
        print("  isolated: notes unavailable")
        return
    }
    let rows = quick ? 200 : 1000
    let listCalls = quick ? 5 : 20
    guard let empty = perCall(isolated, "list", calls: listCalls) else {
        print("  isolated: notes list unavailable")
        return
    }
    for i in 0..<rows {
        _ = isolated.routed("notes", "add", ["text": .string("note \(i)")])
    }
    guard let full = perCall(isolated, "list", calls: listCalls) else { return }
    let perRow = (full - empty) / Double(rows)
    let ratio = floor.map { String(format: "  %.2f× the floor", perRow / $0) } ?? ""
    print("  isolated     one storage step over the wire (list of \(rows) − list of 0, per row)  \(Measure.format(perRow))\(ratio)")
    print("  isolated     notes list of 0 rows (prepare + step + finalize + the call)  \(Measure.format(empty))")
}
