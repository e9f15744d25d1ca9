// Benchmarks for the putting area (filled in by its issue).

func puttingBench(_ arguments: [String]) {
    print("putting: no benchmarks yet")
}
