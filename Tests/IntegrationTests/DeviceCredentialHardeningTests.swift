import DropTrackContract
import DropTrackCore
import DropTrackCrypto
import DropTrackTesting
import Foundation
import Testing

/// The credential with its signature swapped for its twin (r, n−s).
func twinOf(_ credential: String) throws -> String {
    let pieces = credential.split(separator: ".").map(String.init)
    let signature = try #require(Base64URL.decode(pieces[2]))
    return pieces[0] + "." + pieces[1] + "." + Base64URL.encode(ECDSASignature.twin(signature))
}

/// Device credentials a server can take back: one encoding per credential (low s).
@Suite("Device credentials: one encoding each, and taken back by key rotation or per user")
struct DeviceCredentialHardeningTests {
    @Test("the twin (r, n−s) of a valid credential is refused with credential_high_s; the server mints low-s only")
    func lowSOnly() throws {
        let server = try ServerHarness(deviceKeys: true)
        defer { server.stop() }
        let path = "/v1/devices/d1/activities"
        let backend = try server.credential()
        #expect(try server.call("GET", path, key: backend).status == 200)
        let twin = try twinOf(backend)
        let refused = try server.call("GET", path, key: twin)
        #expect(refused.status == 401 && refused.errorCode == "credential_high_s", "\(refused.text)")
        #expect(refused.body["error"]?["message"]?.stringValue?.contains("n − s") == true)
        #expect(refused.headers["www-authenticate"] == #"Bearer error="invalid_token""#)
        for index in 0..<64 {
            let minted = try server.call("POST", "/v1/device-credentials", #"{"userId":"u\#(index)","ttlSeconds":60}"#)
            let credential = try #require(minted.body["credential"]?.stringValue)
            let signature = try #require(Base64URL.decode(credential.split(separator: ".")[2]))
            #expect(ECDSASignature.isLowS(signature), "minted credential \(index)")
            if index == 0 {
                #expect(try server.call("GET", path, key: credential).status == 200)
                #expect(try server.call("GET", path, key: try twinOf(credential)).errorCode == "credential_high_s")
            }
        }
    }
}
