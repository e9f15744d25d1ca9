// The binary min-heap the scheduler and `serve`'s timers share (Platform/MinHeap.swift).

import ClubhousePlatform
import XCTest

final class MinHeapTests: XCTestCase {
    /// Ordered by `key`; `tag` tells elements of equal keys apart.
    struct Item: MinHeapElement, Equatable {
        var key: Int
        var tag: Int
        func precedes(_ other: Item) -> Bool { key < other.key }
    }

    func testElementsComeOutLeastFirstThroughPushesAndRemovalsInterleaved() {
        var generator = SystemRandomNumberGenerator()
        var heap = MinHeap<Item>()
        var model: [Int] = []
        for round in 0..<2_000 {
            if model.isEmpty || Int.random(in: 0..<3, using: &generator) > 0 {
                let key = Int.random(in: 0..<100, using: &generator)
                heap.push(Item(key: key, tag: round))
                model.append(key)
            } else {
                let least = model.min()!
                XCTAssertEqual(heap.first?.key, least)
                heap.removeFirst()
                model.remove(at: model.firstIndex(of: least)!)
            }
            XCTAssertEqual(heap.count, model.count)
        }
        var drained: [Int] = []
        while let first = heap.first {
            drained.append(first.key)
            heap.removeFirst()
        }
        XCTAssertEqual(drained, model.sorted())
        XCTAssertTrue(heap.isEmpty)
    }

    func testAPushSaysWhetherItIsTheNewFirst() {
        var heap = MinHeap<Item>()
        XCTAssertTrue(heap.push(Item(key: 5, tag: 0)), "the only element is the first")
        XCTAssertFalse(heap.push(Item(key: 7, tag: 1)))
        XCTAssertFalse(heap.push(Item(key: 5, tag: 2)), "an equal key does not precede the first")
        XCTAssertTrue(heap.push(Item(key: 1, tag: 3)))
        XCTAssertEqual(heap.first, Item(key: 1, tag: 3))
    }

    func testRemovingFromAnEmptyHeapDoesNothingAndASortedArrayIsAHeap() {
        var heap = MinHeap<Item>()
        heap.removeFirst()
        XCTAssertNil(heap.first)
        heap = MinHeap(sorted: (0..<10).map { Item(key: $0, tag: $0) })
        XCTAssertFalse(heap.push(Item(key: 4, tag: 99)))
        var keys: [Int] = []
        while let first = heap.first {
            keys.append(first.key)
            heap.removeFirst()
        }
        XCTAssertEqual(keys, [0, 1, 2, 3, 4, 4, 5, 6, 7, 8, 9])
    }
}
