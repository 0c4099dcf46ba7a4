import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A listening TCP socket on a loopback address (127.0.0.1 unless `host` names another 127.x
/// address) at a port the kernel picks: (descriptor, port). Shared by the test servers and proxies
/// of every test target.
public func listenOnLoopback(host: String = "127.0.0.1", backlog: Int32 = 16) throws -> (fd: Int32, port: Int) {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard fd >= 0 else { throw ToolFailure("no socket for a test server") }
    var one: Int32 = 1
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr(host)
    address.sin_port = 0
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let bound = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) } }
    guard bound == 0, listen(fd, backlog) == 0 else {
        close(fd)
        throw ToolFailure("test server cannot listen on \(host)")
    }
    _ = withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) } }
    return (fd, Int(UInt16(bigEndian: address.sin_port)))
}

/// Runs a command-line tool (curl, openssl, hostname) to its end; its standard output, or
/// `ToolFailure` when it exits with another status than 0.
@discardableResult
public func runTool(_ path: String, _ arguments: [String]) throws -> Data {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: path)
    process.arguments = arguments
    let pipe = Pipe()
    process.standardOutput = pipe
    process.standardError = FileHandle.nullDevice
    try process.run()
    let data = pipe.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    guard process.terminationStatus == 0 else {
        throw ToolFailure("\(path) \(arguments) exited with status \(process.terminationStatus)")
    }
    return data
}

/// A test tool or socket that did not do its part.
public struct ToolFailure: Error, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}
