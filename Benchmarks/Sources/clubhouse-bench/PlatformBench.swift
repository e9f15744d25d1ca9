// Benchmarks for the platform area (filled in by its issue).

func platformBench(_ arguments: [String]) {
    print("platform: no benchmarks yet")
}
