// Benchmarks for the scorecard area (filled in by its issue).

func scorecardBench(_ arguments: [String]) {
    print("scorecard: no benchmarks yet")
}
