import DropTrackCLI
import DropTrackCore
import DropTrackDispatch
import DropTrackRuntime
import Foundation

/// `droptrack health`: asks a running server on this host whether it is ready, for a container's health
/// check or an exec probe, where no curl is at hand (the image has nothing but the binary).
enum HealthCommand: Command {
    static let path = ["health"]
    static let abstract = "ask the server on this host for /readyz (a container's health check); exit 0 when ready"
    static let help = """
        USAGE: droptrack health [--config FILE] [--listen HOST:PORT] [--path PATH] [--timeout SECONDS]

        Reads the listen address as `serve` does (the file, then DROPTRACK_CONFIG and DROPTRACK_LISTEN, then options),
        sends GET PATH (default /readyz) to it over HTTP/1.1, and exits 0 when the answer is 200, 1 when
        it is anything else or nothing came within the timeout (default 3 s, at most 60). A server
        listening on every address (0.0.0.0) is asked on 127.0.0.1.

        OPTIONS:
          --config FILE        the configuration file serve reads
          --listen HOST:PORT   the address to ask (default: the configuration's)
          --path PATH          what to ask for (default /readyz; /healthz answers while the store is down)
          --timeout SECONDS    how long to wait for the answer, 0.1 to 60
        """

    static func run(_ arguments: [String]) async throws -> Int32 {
        // Only the two variables serve reads for these: DROPTRACK_PATH or DROPTRACK_TIMEOUT would mean something else.
        let environment = ProcessInfo.processInfo.environment.filter {
            $0.key == "DROPTRACK_CONFIG" || $0.key == "DROPTRACK_LISTEN"
        }
        let args = try Arguments(
            arguments, valued: ["config", "listen", "path", "timeout"], switches: [],
            environmentPrefix: "DROPTRACK_", environment: environment)
        let listen: String
        if let value = args.value("listen") {
            listen = value
        } else {
            listen = try ServerConfiguration.load(file: args.value("config")).listen
        }
        guard let address = parseListenAddress(listen) else {
            throw UsageError("--listen must be HOST:PORT, e.g. 127.0.0.1:8787, not '\(listen)'")
        }
        let path = args.value("path") ?? "/readyz"
        guard path.hasPrefix("/"), !path.contains(where: { $0 == " " || $0 == "\r" || $0 == "\n" }) else {
            throw UsageError("--path must start with / and hold no spaces or line breaks, e.g. /readyz")
        }
        let timeoutText = args.value("timeout") ?? "3"
        guard let timeout = Double(timeoutText), timeout >= 0.1, timeout <= 60 else {
            throw UsageError("--timeout must be a number of seconds from 0.1 to 60, not '\(timeoutText)'")
        }
        let host = address.host == "0.0.0.0" || address.host.isEmpty ? "127.0.0.1" : address.host
        do {
            let status = try HealthProbe.status(host: host, port: address.port, path: path, timeout: timeout)
            print("\(path) on \(host):\(address.port): \(status)")
            return status == 200 ? 0 : 1
        } catch {
            printError("droptrack health: \(path) on \(host):\(address.port): \(error)")
            return 1
        }
    }
}

/// One HTTP/1.1 GET on a blocking socket whose every wait is bounded by the timeout.
enum HealthProbe {
    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    /// The status code of `GET path` at an IPv4 `host`.
    static func status(host: String, port: Int, path: String, timeout: Double) throws -> Int {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(port).bigEndian
        guard inet_pton(AF_INET, host, &address.sin_addr) == 1 else {
            throw Failure(description: "\(host) is not an IPv4 address")
        }
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw Failure(description: "socket: \(String(cString: strerror(errno)))") }
        defer { close(fd) }
        // On Linux a blocking connect() gives up after SO_SNDTIMEO, and recv() after SO_RCVTIMEO.
        var wait = timeval(tv_sec: Int(timeout), tv_usec: Int((timeout - timeout.rounded(.down)) * 1_000_000))
        for option in [SO_SNDTIMEO, SO_RCVTIMEO] {
            _ = setsockopt(fd, SOL_SOCKET, option, &wait, socklen_t(MemoryLayout<timeval>.size))
        }
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else { throw Failure(description: "connect: \(String(cString: strerror(errno)))") }
        let request = Array("GET \(path) HTTP/1.1\r\nHost: \(host):\(port)\r\nConnection: close\r\n\r\n".utf8)
        guard request.withUnsafeBytes({ send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }) == request.count
        else { throw Failure(description: "send: \(String(cString: strerror(errno)))") }
        // The status line is all this needs: "HTTP/1.1 200 OK".
        var answer: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 512)
        while !answer.contains(UInt8(ascii: "\n")) && answer.count < 4096 {
            let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if count < 0 { throw Failure(description: "no answer within \(timeout) s") }
            if count == 0 { break }
            answer += buffer[0..<count]
        }
        let statusLine = String(
            decoding: answer.prefix { $0 != UInt8(ascii: "\r") && $0 != UInt8(ascii: "\n") }, as: UTF8.self)
        let parts = statusLine.split(separator: " ")
        guard parts.count >= 2, parts[0].hasPrefix("HTTP/1."), let status = Int(parts[1]), (100...599).contains(status)
        else { throw Failure(description: "not an HTTP answer: '\(statusLine.prefix(80))'") }
        return status
    }
}
