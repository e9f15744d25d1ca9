// A binary min-heap, for the two places that keep work by deadline: the scheduler's jobs
// (Threads.swift) and `serve`'s client timers (ServeTransport.swift). Inlinable, so the serve loop's
// copy is specialized for its element and compiled into its own module.

/// What a `MinHeap` keeps: `precedes` says which of two elements comes out first (a strict order;
/// elements neither of which precedes the other come out in no particular order).
public protocol MinHeapElement {
    func precedes(_ other: Self) -> Bool
}

/// Elements kept so that the first to come out (none precedes it) is read at once, and each push and
/// each removal of the first costs O(log n).
public struct MinHeap<Element: MinHeapElement> {
    @usableFromInline var items: [Element]

    @inlinable public init() { items = [] }

    /// A heap of `sorted`, which is in order already (a sorted array is a heap).
    @inlinable public init(sorted: [Element]) { items = sorted }

    /// The element that comes out next, nil when empty.
    @inlinable public var first: Element? { items.first }

    @inlinable public var count: Int { items.count }

    @inlinable public var isEmpty: Bool { items.isEmpty }

    /// Adds `element`. Returns true when it is the new first.
    @inlinable @discardableResult
    public mutating func push(_ element: Element) -> Bool {
        var child = items.count
        items.append(element)
        while child > 0 {
            let parent = (child - 1) / 2
            guard items[child].precedes(items[parent]) else { break }
            items.swapAt(child, parent)
            child = parent
        }
        return child == 0
    }

    /// Removes the first element (nothing when empty).
    @inlinable public mutating func removeFirst() {
        guard let last = items.popLast(), !items.isEmpty else { return }
        items[0] = last
        var parent = 0
        while true {
            let left = 2 * parent + 1, right = left + 1
            var first = parent
            if left < items.count && items[left].precedes(items[first]) { first = left }
            if right < items.count && items[right].precedes(items[first]) { first = right }
            guard first != parent else { return }
            items.swapAt(first, parent)
            parent = first
        }
    }
}

extension MinHeap: Sendable where Element: Sendable {}
