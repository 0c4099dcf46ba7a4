import Foundation

/// A plain TCP connection to the test server, for what URLSession cannot do: send malformed
/// HTTP, hold a connection idle, or send a request and then never read the answer.
final class RawConnection {
    let descriptor: Int32

    /// Connects to 127.0.0.1:`port`. `receiveBuffer` shrinks the socket's receive buffer, so a
    /// client that does not read stalls the server's writes sooner.
    init(port: Int, receiveBuffer: Int32? = nil) throws {
        descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw TestSupportError("socket: \(String(cString: strerror(errno)))") }
        if var size = receiveBuffer {
            setsockopt(descriptor, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
        }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else {
            let message = String(cString: strerror(errno))
            Glibc.close(descriptor)
            throw TestSupportError("connect: \(message)")
        }
    }

    deinit { Glibc.close(descriptor) }

    func send(_ text: String) throws { try send(Data(text.utf8)) }

    func send(_ data: Data) throws {
        try data.withUnsafeBytes { bytes in
            var sent = 0
            while sent < bytes.count {
                let result = Glibc.send(descriptor, bytes.baseAddress! + sent, bytes.count - sent, Int32(MSG_NOSIGNAL))
                guard result > 0 else { throw TestSupportError("send: \(String(cString: strerror(errno)))") }
                sent += result
            }
        }
    }

    /// Reads until the server closes the connection, `timeout` passes or `maxBytes` came;
    /// returns what came.
    func readToEnd(timeout: TimeInterval, maxBytes: Int = .max, until suffix: Data? = nil) -> (data: Data, closed: Bool) {
        var data = Data()
        let deadline = Date().addingTimeInterval(timeout)
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while Date() < deadline && data.count < maxBytes {
            var poller = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            let ready = poll(&poller, 1, Int32(max(1, deadline.timeIntervalSinceNow * 1000)))
            if ready <= 0 { continue }
            let count = recv(descriptor, &buffer, buffer.count, 0)
            if count <= 0 { return (data, true) }
            data.append(buffer, count: count)
            if let suffix, data.count >= suffix.count, data.suffix(suffix.count) == suffix { break }
        }
        return (data, false)
    }

    /// A POST with a JSON body, as HTTP/1.1 text.
    static func post(_ path: String, json: String, token: String? = nil) -> String {
        var head = "POST \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
        if let token { head += "Authorization: Bearer \(token)\r\n" }
        return head + "Content-Length: \(json.utf8.count)\r\n\r\n" + json
    }
}

struct TestSupportError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// Open file descriptors of this process (the in-process server's included).
/// The open sockets and sync spool files of this process (the server runs in it): what a
/// dropped sync could leak. Database connections are left out: the server's connection pool
/// opens readers as load requires and keeps them, which is not a leak.
func openSocketAndSpoolCount() -> Int {
    let descriptors = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
    return descriptors.filter { descriptor in
        guard let target = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/\(descriptor)") else { return false }
        return target.hasPrefix("socket:") || target.contains(".sync-spool-")
    }.count
}
