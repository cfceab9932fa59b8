import DropTrackCrypto
import DropTrackHTTP2
import Foundation
import Synchronization

final class Echo: HTTP2ServerHandler {
    func handle(_ request: HTTP2ServerRequest, context: HTTP2ServerConnectionContext) -> HTTP2ServerAction {
        .respond(HTTP2ServerResponse(status: 200, headers: [HTTPHeader("apns-id", "0c39e9f0-4b2b-4b5e-9a6c-2d1f2f4f4b2b")]))
    }
}
let args = CommandLine.arguments
let dir = "/tmp/dtbench"
try? FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
if args.count > 1 && args[1] == "server" {
let certs = try DevelopmentCertificates.generate()
try certs.caCertificatePEM.write(toFile: dir + "/ca.pem", atomically: true, encoding: .utf8)
try certs.serverCertificatePEM.write(toFile: dir + "/cert.pem", atomically: true, encoding: .utf8)
try certs.serverKeyPEM.write(toFile: dir + "/key.pem", atomically: true, encoding: .utf8)
    let server = HTTP2Server(tls: try TLSContext(serverCertificateFile: dir + "/cert.pem", privateKeyFile: dir + "/key.pem", alpn: ["h2"]), handler: Echo())
    let port = try server.start(port: 9443)
    print("listening \(port)")
    while true { sleep(100) }
}
let port = Int(args.count > 2 ? args[2] : "9443")!
let n = Int(ProcessInfo.processInfo.environment["N"] ?? "200000")!
let window = 100
let client = HTTP2Client(configuration: .init(host: "127.0.0.1", port: port, serverName: "localhost"), tls: try TLSContext(clientALPN: ["h2"], caFile: args.count > 3 ? args[3] : dir + "/ca.pem"))
let body = Array(#"{"aps":{"event":"update","timestamp":1700000000,"content-state":{"status":"On the way","progress":0.5}}}"#.utf8)
let done = Mutex(0)
let sent = Mutex(0)
let finished = DispatchSemaphore(value: 0)
let start = ContinuousClock.now
@Sendable func sendOne() {
    let ok = sent.withLock { if $0 >= n { return false }; $0 += 1; return true }
    guard ok else { return }
    client.execute(HTTP2Request(method: "POST", path: "/3/device/abcdef0123456789", headers: [HTTPHeader("apns-topic", "com.x.push-type.liveactivity"), HTTPHeader("apns-push-type", "liveactivity")], body: body, neverIndexPath: true)) { _ in
        let c = done.withLock { $0 += 1; return $0 }
        if c == n { finished.signal() } else { sendOne() }
    }
}
for _ in 0..<window { sendOne() }
finished.wait()
let elapsed = ContinuousClock.now - start
let secs = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
print("pushes_per_second=\(Int(Double(n) / secs))")
