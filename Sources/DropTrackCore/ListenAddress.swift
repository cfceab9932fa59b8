/// Parses a listening address `HOST:PORT` (port 0 asks the system for a free one).
public func parseListenAddress(_ text: String) -> (host: String, port: Int)? {
    let parts = text.split(separator: ":", omittingEmptySubsequences: false)
    guard parts.count == 2, !parts[0].isEmpty, let port = Int(parts[1]), (0...65535).contains(port) else { return nil }
    return (String(parts[0]), port)
}
