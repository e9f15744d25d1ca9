// Benchmarks for the tennis area (filled in by its issue).

func tennisBench(_ arguments: [String]) {
    print("tennis: no benchmarks yet")
}
