/// The newest `capacity` items, oldest first; appending past capacity overwrites the oldest slot,
/// so a long benchmark costs the same per request at the millionth push as at the first.
struct RecordRing<Element> {
    private var storage: [Element] = []
    private var head = 0
    let capacity: Int

    init(capacity: Int) { self.capacity = max(1, capacity) }

    var count: Int { storage.count }

    mutating func append(_ element: Element) {
        if storage.count < capacity {
            storage.append(element)
        } else {
            storage[head] = element
            head = (head + 1) % capacity
        }
    }

    mutating func removeAll() {
        storage.removeAll()
        head = 0
    }

    /// Every element, oldest first.
    var elements: [Element] { Array(storage[head...]) + storage[..<head] }

    /// The elements that pass `isIncluded`, oldest first, without copying the rest.
    func filter(_ isIncluded: (Element) -> Bool) -> [Element] {
        storage[head...].filter(isIncluded) + storage[..<head].filter(isIncluded)
    }
}
