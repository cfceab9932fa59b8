import DropTrackCrypto
import Foundation

/// A development CA and server identity made once per test process, written to a temp folder.
package enum TestPKI {
    package struct Material: Sendable {
        package let certificates: DevelopmentCertificates
        package let directory: String
        package var caFile: String { directory + "/ca.pem" }
        package var certFile: String { directory + "/server.pem" }
        package var keyFile: String { directory + "/server-key.pem" }
    }

    package static let shared: Material = {
        let certificates = try! DevelopmentCertificates.generate()
        let directory = NSTemporaryDirectory() + "droptrack-tests-\(getpid())"
        try? FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let material = Material(certificates: certificates, directory: directory)
        try! certificates.caCertificatePEM.write(toFile: material.caFile, atomically: true, encoding: .utf8)
        try! certificates.serverCertificatePEM.write(toFile: material.certFile, atomically: true, encoding: .utf8)
        try! certificates.serverKeyPEM.write(toFile: material.keyFile, atomically: true, encoding: .utf8)
        return material
    }()

    package static func serverTLS(alpn: [String] = ["h2"]) throws -> TLSContext {
        try TLSContext(
            serverCertificateChainPEM: Data(shared.certificates.serverCertificatePEM.utf8),
            privateKeyPEM: Data(shared.certificates.serverKeyPEM.utf8), alpn: alpn)
    }

    package static func clientTLS() throws -> TLSContext { try TLSContext(clientALPN: ["h2"], caFile: shared.caFile) }
}

/// A scratch directory removed by the caller.
package func makeTemporaryDirectory(_ name: String = "t") -> String {
    let path = NSTemporaryDirectory() + "droptrack-\(name)-\(UUID().uuidString)"
    try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    return path
}

/// Polls `condition` every 10 ms until it holds or `timeout` passes, sleeping without holding a thread:
/// what async tests use while actors (a `LiveActivitySync`) must run meanwhile.
package func waitFor(timeout: Duration = .seconds(10), _ condition: () async -> Bool) async -> Bool {
    let deadline = ContinuousClock.now + timeout
    while ContinuousClock.now < deadline {
        if await condition() { return true }
        try? await Task.sleep(for: .milliseconds(10))
    }
    return await condition()
}
