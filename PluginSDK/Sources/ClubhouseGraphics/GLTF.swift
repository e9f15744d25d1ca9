// glTF 2.0 as one self-contained .gltf file: the binary buffer embedded as a base64 data URI.
// Plugins build their meshes, accessors and materials; this writes the document around them.

import ClubhouseJSON

public enum GLTF {
    /// The whole document, one line of JSON plus a newline.
    public static func embeddedDocument(generator: String, sceneName: String, nodes: [JSONValue], meshes: [JSONValue],
                                        materials: [JSONValue], accessors: [JSONValue], bufferViews: [JSONValue],
                                        buffer: [UInt8]) -> String {
        let uri = "data:application/octet-stream;base64," + base64(buffer)
        let document: JSONValue = [
            "asset": ["version": "2.0", "generator": .string(generator)],
            "scene": 0,
            "scenes": [["name": .string(sceneName), "nodes": .array((0..<nodes.count).map { .int($0) })]],
            "nodes": .array(nodes),
            "meshes": .array(meshes),
            "materials": .array(materials),
            "accessors": .array(accessors),
            "bufferViews": .array(bufferViews),
            "buffers": [["byteLength": .int(buffer.count), "uri": .string(uri)]],
        ]
        return JSONWriter.compact(document) + "\n"
    }

    private static let alphabet: [UInt8] = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)

    /// Standard base64 (RFC 4648) with padding.
    public static func base64(_ bytes: [UInt8]) -> String {
        var out: [UInt8] = []
        out.reserveCapacity((bytes.count + 2) / 3 * 4)
        var i = 0
        while i + 3 <= bytes.count {
            let n = UInt32(bytes[i]) << 16 | UInt32(bytes[i + 1]) << 8 | UInt32(bytes[i + 2])
            out.append(alphabet[Int(n >> 18)])
            out.append(alphabet[Int((n >> 12) & 63)])
            out.append(alphabet[Int((n >> 6) & 63)])
            out.append(alphabet[Int(n & 63)])
            i += 3
        }
        let rest = bytes.count - i
        if rest > 0 {
            let n = UInt32(bytes[i]) << 16 | (rest == 2 ? UInt32(bytes[i + 1]) << 8 : 0)
            out.append(alphabet[Int(n >> 18)])
            out.append(alphabet[Int((n >> 12) & 63)])
            out.append(rest == 2 ? alphabet[Int((n >> 6) & 63)] : UInt8(ascii: "="))
            out.append(UInt8(ascii: "="))
        }
        return String(decoding: out, as: UTF8.self)
    }
}
