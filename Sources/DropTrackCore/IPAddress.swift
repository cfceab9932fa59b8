import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// An IPv4 or IPv6 address: its 4 or 16 bytes in network order.
public struct IPAddress: Sendable, Hashable, CustomStringConvertible {
    /// 4 bytes (IPv4) or 16 (IPv6).
    public let bytes: [UInt8]

    /// The address of these 4 or 16 bytes; nil for any other count.
    public init?(bytes: [UInt8]) {
        guard bytes.count == 4 || bytes.count == 16 else { return nil }
        self.bytes = bytes
    }

    /// Parses dotted-quad IPv4 or IPv6 text; `[…]` around an IPv6 address and a zone (`%eth0`) are dropped.
    /// Only the standard forms are taken (no `0x7f.1`, no octal): anything else is a host name, not an address.
    public init?(_ text: String) {
        var text = text
        if text.hasPrefix("["), text.hasSuffix("]") { text = String(text.dropFirst().dropLast()) }
        if let zone = text.firstIndex(of: "%") { text = String(text[..<zone]) }
        var v4 = in_addr()
        var v6 = in6_addr()
        if inet_pton(AF_INET, text, &v4) == 1 {
            bytes = withUnsafeBytes(of: &v4) { Array($0) }
        } else if inet_pton(AF_INET6, text, &v6) == 1 {
            bytes = withUnsafeBytes(of: &v6) { Array($0) }
        } else {
            return nil
        }
    }

    /// Whether it is an IPv4 address (4 bytes).
    public var isIPv4: Bool { bytes.count == 4 }

    /// The IPv4 address an IPv6 one carries in its last 4 bytes and routes to: IPv4-mapped `::ffff:a.b.c.d`,
    /// the deprecated IPv4-compatible `::a.b.c.d`, NAT64's `64:ff9b::a.b.c.d`; or in bytes 2-5 for 6to4's
    /// `2002:AABB:CCDD::/48`. Nil for an IPv4 address and for IPv6 ones that carry none.
    public var embeddedIPv4: IPAddress? {
        guard bytes.count == 16 else { return nil }
        let head = bytes[0..<12]
        // `::` and `::1` are IPv6's own unspecified and loopback addresses, not IPv4-compatible ones.
        let compatible = head.allSatisfy { $0 == 0 } && !(bytes[12..<15].allSatisfy { $0 == 0 } && bytes[15] <= 1)
        if compatible || head.elementsEqual(IPNetwork.mappedPrefix) || head.elementsEqual(Self.nat64Prefix) {
            return IPAddress(bytes: Array(bytes[12..<16]))
        }
        if bytes[0] == 0x20, bytes[1] == 0x02 { return IPAddress(bytes: Array(bytes[2..<6])) }
        return nil
    }

    static let nat64Prefix: [UInt8] = [0x00, 0x64, 0xff, 0x9b, 0, 0, 0, 0, 0, 0, 0, 0]

    /// The standard text form (`10.0.0.1`, `fe80::1`).
    public var description: String {
        var buffer = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        return bytes.withUnsafeBytes { raw in
            guard inet_ntop(isIPv4 ? AF_INET : AF_INET6, raw.baseAddress, &buffer, socklen_t(buffer.count)) != nil
            else { return bytes.map(String.init).joined(separator: ".") }
            return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        }
    }
}

/// A network in CIDR form, `10.0.0.0/8` or `fd00::/8`.
public struct IPNetwork: Sendable, Hashable, CustomStringConvertible {
    /// The first address of the network.
    public let address: IPAddress
    /// How many leading bits every address of the network shares.
    public let prefixLength: Int

    /// Parses `ADDRESS/PREFIX` (a bare address is a network of one). Nil for text that is not one, a prefix
    /// longer than the address, or an address with bits set past the prefix (`10.0.0.1/8`): that is usually a
    /// typo, and taking it as `10.0.0.0/8` would allow more than was written.
    public init?(_ text: String) {
        let parts = text.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false)
        guard let address = IPAddress(String(parts[0])), !parts[0].contains("%") else { return nil }
        let bits = address.bytes.count * 8
        var prefix = bits
        if parts.count == 2 {
            guard let length = Int(parts[1]), parts[1].allSatisfy(\.isASCII), (0...bits).contains(length) else {
                return nil
            }
            prefix = length
        }
        guard Self.masked(address.bytes, prefix) == address.bytes else { return nil }
        self.address = address
        prefixLength = prefix
    }

    /// Whether `candidate` is in the network. An IPv4-mapped IPv6 address (`::ffff:10.0.0.5`) is taken as the
    /// IPv4 address it is, since a connection to it reaches that address.
    public func contains(_ candidate: IPAddress) -> Bool {
        var candidate = candidate
        if !candidate.isIPv4, address.isIPv4, candidate.bytes[0..<12].elementsEqual(Self.mappedPrefix) {
            candidate = IPAddress(bytes: Array(candidate.bytes[12...]))!
        }
        guard candidate.bytes.count == address.bytes.count else { return false }
        return Self.masked(candidate.bytes, prefixLength) == address.bytes
    }

    /// `ADDRESS/PREFIX`.
    public var description: String { "\(address)/\(prefixLength)" }

    static let mappedPrefix: [UInt8] = [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff]

    static func masked(_ bytes: [UInt8], _ prefix: Int) -> [UInt8] {
        bytes.enumerated().map { index, byte in
            let kept = min(8, max(0, prefix - index * 8))
            return kept == 8 ? byte : byte & ~(UInt8(0xff) >> kept)
        }
    }
}
