// Benchmarks for the practice area (filled in by its issue).

func practiceBench(_ arguments: [String]) {
    print("practice: no benchmarks yet")
}
