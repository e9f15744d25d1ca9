// The binary side of a glTF 2.0 document the drawing plugins write (globe, putting): one buffer of
// little-endian floats and indices, each run 4-byte aligned, with its buffer views and accessors;
// ClubhouseGraphics' `GLTF.embeddedDocument` wraps them into the .gltf text.

import ClubhouseJSON

public struct GLTFBuffer: Sendable {
    /// ARRAY_BUFFER and ELEMENT_ARRAY_BUFFER, the `target` of a vertex and an index view.
    public static let vertexTarget = 34962, indexTarget = 34963
    /// FLOAT and UNSIGNED_INT, an accessor's `componentType`.
    public static let float = 5126, unsignedInt = 5125

    public private(set) var bytes: [UInt8] = []
    public private(set) var bufferViews: [JSONValue] = []
    public private(set) var accessors: [JSONValue] = []

    public init() {}

    /// Pads the buffer with zeros to a multiple of 4 bytes.
    public mutating func align() { while bytes.count % 4 != 0 { bytes.append(0) } }

    /// Appends floats (aligned first); their byte offset and length.
    public mutating func appendFloats<C: Collection>(_ values: C) -> (offset: Int, length: Int) where C.Element == Float {
        align()
        let offset = bytes.count
        bytes.reserveCapacity(bytes.count + 4 * values.count)
        for v in values { appendWord(v.bitPattern) }
        return (offset, bytes.count - offset)
    }

    /// Appends 32-bit indices (aligned first); their byte offset and length.
    public mutating func appendIndices<C: Collection>(_ values: C) -> (offset: Int, length: Int) where C.Element == UInt32 {
        align()
        let offset = bytes.count
        bytes.reserveCapacity(bytes.count + 4 * values.count)
        for v in values { appendWord(v) }
        return (offset, bytes.count - offset)
    }

    private mutating func appendWord(_ v: UInt32) {
        bytes.append(UInt8(truncatingIfNeeded: v))
        bytes.append(UInt8(truncatingIfNeeded: v >> 8))
        bytes.append(UInt8(truncatingIfNeeded: v >> 16))
        bytes.append(UInt8(truncatingIfNeeded: v >> 24))
    }

    /// A buffer view over `range`; its number.
    public mutating func view(_ range: (offset: Int, length: Int), target: Int) -> Int {
        bufferViews.append(["buffer": 0, "byteOffset": .int(range.offset), "byteLength": .int(range.length), "target": .int(target)])
        return bufferViews.count - 1
    }

    /// An accessor of `view` (with its bounds when given, as POSITION needs); its number.
    public mutating func accessor(view: Int, componentType: Int, count: Int, type: String, min: [Double]? = nil,
                                  max: [Double]? = nil) -> Int {
        var o = JSONObject()
        o["bufferView"] = .int(view)
        o["componentType"] = .int(componentType)
        o["count"] = .int(count)
        o["type"] = .string(type)
        if let min, let max {
            o["min"] = .array(min.map(JSONValue.double))
            o["max"] = .array(max.map(JSONValue.double))
        }
        accessors.append(.object(o))
        return accessors.count - 1
    }
}
