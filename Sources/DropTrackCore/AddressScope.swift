/// Where an address leads: the public internet, or somewhere a server must not be sent by whoever chose
/// the URL (its own loopback, the private network it sits on, the cloud's metadata service at 169.254.169.254).
public enum AddressScope: String, Sendable, CaseIterable {
    /// Reachable on the public internet.
    case global
    /// 127.0.0.0/8, ::1: this machine.
    case loopback
    /// 10.0.0.0/8, 172.16.0.0/12, 192.168.0.0/16 (RFC 1918).
    case privateUse = "private"
    /// 100.64.0.0/10, carrier-grade NAT (RFC 6598).
    case sharedAddressSpace = "shared"
    /// fc00::/7, IPv6's private addresses (RFC 4193).
    case uniqueLocal = "unique-local"
    /// 169.254.0.0/16, fe80::/10: this link only; 169.254.169.254 is the cloud metadata service.
    case linkLocal = "link-local"
    /// 0.0.0.0/8, ::: no address at all (a connection to 0.0.0.0 reaches this machine on Linux).
    case unspecified
    /// 224.0.0.0/4, ff00::/8.
    case multicast
    /// 255.255.255.255.
    case broadcast
    /// Set aside by the IETF: documentation, benchmarking, 240.0.0.0/4, Teredo, IPv6 outside 2000::/3.
    case reserved

    /// The scope of `address`. An IPv6 address that carries an IPv4 one (IPv4-mapped, NAT64, 6to4) has the
    /// IPv4 address's scope, so `::ffff:127.0.0.1` is loopback.
    public init(_ address: IPAddress) {
        self = address.isIPv4 ? Self.ipv4(address.bytes) : Self.ipv6(address)
    }

    /// How an error names it: "a private address (RFC 1918)".
    public var explanation: String {
        switch self {
        case .global: "a public address"
        case .loopback: "a loopback address (this machine)"
        case .privateUse: "a private address (RFC 1918)"
        case .sharedAddressSpace: "a carrier-grade NAT address (100.64.0.0/10)"
        case .uniqueLocal: "a private IPv6 address (fc00::/7)"
        case .linkLocal: "a link-local address (169.254.0.0/16 or fe80::/10, where cloud metadata services live)"
        case .unspecified: "the unspecified address"
        case .multicast: "a multicast address"
        case .broadcast: "the broadcast address"
        case .reserved: "a reserved address"
        }
    }

    private static func ipv4(_ b: [UInt8]) -> AddressScope {
        switch (b[0], b[1], b[2]) {
        case (0, _, _): .unspecified
        case (10, _, _): .privateUse
        case (100, 64...127, _): .sharedAddressSpace
        case (127, _, _): .loopback
        case (169, 254, _): .linkLocal
        case (172, 16...31, _): .privateUse
        case (192, 168, _): .privateUse
        case (192, 0, 0), (192, 0, 2), (192, 88, 99), (198, 18...19, _), (198, 51, 100), (203, 0, 113): .reserved
        case (224...239, _, _): .multicast
        case (255, 255, 255) where b[3] == 255: .broadcast
        case (240...255, _, _): .reserved
        default: .global
        }
    }

    private static func ipv6(_ address: IPAddress) -> AddressScope {
        let b = address.bytes
        if b.allSatisfy({ $0 == 0 }) { return .unspecified }
        if b[0..<15].allSatisfy({ $0 == 0 }) && b[15] == 1 { return .loopback }
        if let v4 = address.embeddedIPv4 { return ipv4(v4.bytes) }
        switch (b[0], b[1], b[2], b[3]) {
        case (0xff, _, _, _): return .multicast
        case (0xfc...0xfd, _, _, _): return .uniqueLocal
        case (0xfe, 0x80...0xbf, _, _): return .linkLocal
        // Teredo (2001::/32) tunnels to an IPv4 address written obscured; documentation (2001:db8::/32).
        case (0x20, 0x01, 0x00, 0x00), (0x20, 0x01, 0x0d, 0xb8): return .reserved
        case (0x20...0x3f, _, _, _): return .global
        default: return .reserved
        }
    }
}

/// Which addresses an outbound call chosen by configuration (a webhook) may connect to: public ones, and
/// loopback or listed networks only when the operator says so.
public struct OutboundAddressPolicy: Sendable, Equatable {
    /// Loopback (127.0.0.0/8, ::1) is allowed (tests, local development).
    public var allowLoopback: Bool
    /// Networks allowed whatever their scope (a receiver on the operator's own private network).
    public var allowedNetworks: [IPNetwork]

    /// Public addresses only, plus loopback and `allowedNetworks` when given.
    public init(allowLoopback: Bool = false, allowedNetworks: [IPNetwork] = []) {
        self.allowLoopback = allowLoopback
        self.allowedNetworks = allowedNetworks
    }

    /// Nil when a connection to `address` is allowed; else the scope that refuses it.
    public func refusal(of address: IPAddress) -> AddressScope? {
        let scope = AddressScope(address)
        if scope == .global || allowLoopback && scope == .loopback { return nil }
        return allowedNetworks.contains { $0.contains(address) } ? nil : scope
    }
}
