import DropTrackCore
import Testing

@Suite("Address scopes: where an address leads, for IPv4, IPv6 and IPv6 carrying IPv4")
struct AddressScopeTests {
    func scope(_ text: String) -> AddressScope? { IPAddress(text).map(AddressScope.init) }

    @Test(
        "IPv4",
        arguments: [
            ("8.8.8.8", AddressScope.global), ("1.1.1.1", .global), ("172.32.0.1", .global), ("100.128.0.1", .global),
            ("127.0.0.1", .loopback), ("127.255.255.254", .loopback),
            ("10.0.0.1", .privateUse), ("172.16.0.1", .privateUse), ("172.31.255.255", .privateUse),
            ("192.168.1.1", .privateUse), ("100.64.0.1", .sharedAddressSpace), ("100.127.255.255", .sharedAddressSpace),
            ("169.254.169.254", .linkLocal), ("0.0.0.0", .unspecified), ("0.1.2.3", .unspecified),
            ("224.0.0.1", .multicast), ("239.255.255.250", .multicast), ("255.255.255.255", .broadcast),
            ("240.0.0.1", .reserved), ("192.0.2.1", .reserved), ("198.18.0.1", .reserved), ("203.0.113.9", .reserved),
        ])
    func ipv4(address: String, expected: AddressScope) {
        #expect(scope(address) == expected, "\(address)")
    }

    @Test(
        "IPv6",
        arguments: [
            ("2606:4700:4700::1111", AddressScope.global), ("2a00:1450:4001::200e", .global),
            ("::1", .loopback), ("::", .unspecified), ("fc00::1", .uniqueLocal), ("fd12:3456::1", .uniqueLocal),
            ("fe80::1", .linkLocal), ("febf::1", .linkLocal), ("ff02::1", .multicast), ("2001:db8::1", .reserved),
            ("2001:0:4136:e378::1", .reserved), ("100::1", .reserved), ("fec0::1", .reserved), ("[::1]", .loopback),
            ("fe80::1%eth0", .linkLocal),
        ])
    func ipv6(address: String, expected: AddressScope) {
        #expect(scope(address) == expected, "\(address)")
    }

    @Test(
        "IPv6 carrying IPv4 has the IPv4 address's scope: mapped, compatible, NAT64, 6to4",
        arguments: [
            ("::ffff:127.0.0.1", AddressScope.loopback), ("::ffff:7f00:1", .loopback), ("::ffff:10.1.2.3", .privateUse),
            ("::ffff:169.254.169.254", .linkLocal), ("::ffff:8.8.8.8", .global), ("::127.0.0.1", .loopback),
            ("64:ff9b::192.168.0.1", .privateUse), ("64:ff9b::8.8.8.8", .global), ("2002:7f00:1::1", .loopback),
            ("2002:0808:0808::1", .global),
        ])
    func embedded(address: String, expected: AddressScope) {
        #expect(scope(address) == expected, "\(address)")
    }

    @Test("only standard address text parses: names and shorthand forms are names, not addresses")
    func parsing() {
        for text in ["localhost", "0x7f.1", "2130706433", "127.1", "example.com", "1.2.3.4.5", "", "::ffff::1"] {
            #expect(IPAddress(text) == nil, "\(text)")
        }
        #expect(IPAddress("127.0.0.1")?.bytes == [127, 0, 0, 1])
        #expect(IPAddress("::ffff:7f00:1")?.description == "::ffff:127.0.0.1")
        #expect(IPAddress("fe80::1%eth0")?.description == "fe80::1")
        #expect(IPAddress(bytes: [1, 2, 3]) == nil)
    }

    @Test("networks: CIDR text, host bits refused, IPv4-mapped addresses matched as IPv4")
    func networks() throws {
        let ten = try #require(IPNetwork("10.20.0.0/16"))
        #expect(ten.contains(IPAddress("10.20.3.4")!))
        #expect(!ten.contains(IPAddress("10.21.0.1")!))
        #expect(ten.contains(IPAddress("::ffff:10.20.0.9")!))
        #expect(!ten.contains(IPAddress("fd00::1")!))
        let ula = try #require(IPNetwork("fd00:1::/32"))
        #expect(ula.contains(IPAddress("fd00:1:ffff::1")!) && !ula.contains(IPAddress("fd00:2::1")!))
        #expect(IPNetwork("192.168.1.7")?.prefixLength == 32)
        #expect(IPNetwork("172.16.0.0/12")?.description == "172.16.0.0/12")
        for text in ["10.0.0.1/8", "10.0.0.0/33", "10.0.0.0/", "10.0.0.0/-1", "fd00::/129", "example.com/8", "/8"] {
            #expect(IPNetwork(text) == nil, "\(text)")
        }
    }

    @Test("the policy refuses every scope but global, allowing loopback and listed networks only when told")
    func policy() {
        let strict = OutboundAddressPolicy()
        #expect(strict.refusal(of: IPAddress("8.8.8.8")!) == nil)
        #expect(strict.refusal(of: IPAddress("127.0.0.1")!) == .loopback)
        #expect(strict.refusal(of: IPAddress("::ffff:127.0.0.1")!) == .loopback)
        #expect(strict.refusal(of: IPAddress("10.1.2.3")!) == .privateUse)
        let loopback = OutboundAddressPolicy(allowLoopback: true)
        #expect(loopback.refusal(of: IPAddress("::1")!) == nil)
        #expect(loopback.refusal(of: IPAddress("169.254.169.254")!) == .linkLocal)
        let listed = OutboundAddressPolicy(allowedNetworks: [IPNetwork("10.1.0.0/16")!])
        #expect(listed.refusal(of: IPAddress("10.1.2.3")!) == nil)
        #expect(listed.refusal(of: IPAddress("10.2.0.1")!) == .privateUse)
        #expect(listed.refusal(of: IPAddress("127.0.0.1")!) == .loopback)
    }
}
