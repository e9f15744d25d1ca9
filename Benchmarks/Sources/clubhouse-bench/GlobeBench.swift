// Benchmarks for the globe area (filled in by its issue).

func globeBench(_ arguments: [String]) {
    print("globe: no benchmarks yet")
}
