// The grammar of "publishers" in plugins.json: a name an administrator chooses for a package
// signer (lowercase letters, digits, '.', '-'; 1-64 characters) and its Ed25519 public key as
// `ed25519:BASE64` (what `clubhouse plugin keygen` prints).

import ClubhouseHashing

enum PublisherNames {
    /// Why `name` cannot name a publisher, or nil.
    static func problem(_ name: String) -> String? {
        let ok = !name.isEmpty && name.utf8.count <= 64 && name.unicodeScalars.first.map { ("a"..."z").contains($0) || ("0"..."9").contains($0) } == true
            && name.unicodeScalars.allSatisfy { ("a"..."z").contains($0) || ("0"..."9").contains($0) || $0 == "-" || $0 == "." }
        return ok ? nil : "publisher name '\(name)' must be 1 to 64 lowercase letters, digits, '.' and '-', starting with a letter or digit, eg: \"acme\""
    }

    static func key(_ text: String) -> Result<[UInt8], Ed25519.KeyError> { Ed25519.parsePublicKey(text) }
}
