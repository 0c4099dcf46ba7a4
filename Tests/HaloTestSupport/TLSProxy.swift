import Foundation

/// A TLS front for a plain-http server on loopback, as a production reverse proxy would be: GUI
/// tests put `halo-server` behind a certificate with it. Python's `ssl` module terminates TLS
/// (the machine's python3, already needed by the AT-SPI drivers); bytes pass through unchanged.
public final class TLSProxy {
    public let port: Int
    private let process = Process()

    /// Forwards `https://127.0.0.1:<port>` to `http://127.0.0.1:<backendPort>`, presenting
    /// `certificate` (PEM) with its private `key`.
    public init(certificate: URL, key: URL, backendPort: Int) throws {
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", "-c", Self.script, certificate.path, key.path, String(backendPort)]
        let output = Pipe()
        process.standardOutput = output
        // A client that refuses the certificate ends the handshake: Python reports it, nobody needs it.
        process.standardError = FileHandle.nullDevice
        try process.run()
        let line = String(decoding: output.fileHandleForReading.availableData, as: UTF8.self)
        guard let port = Int(line.trimmingCharacters(in: .whitespacesAndNewlines)) else {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            throw NSError(domain: "TLSProxy", code: 1, userInfo: [NSLocalizedDescriptionKey: "the TLS proxy did not start: \(line)"])
        }
        self.port = port
    }

    public var url: URL { URL(string: "https://127.0.0.1:\(port)")! }

    public func stop() {
        guard process.isRunning else { return }
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }

    deinit { stop() }

    /// Prints its port once listening, then relays every connection both ways.
    private static let script = """
        import asyncio, ssl, sys

        certificate, key, backend = sys.argv[1], sys.argv[2], int(sys.argv[3])

        async def relay(reader, writer):
            try:
                while data := await reader.read(65536):
                    writer.write(data)
                    await writer.drain()
            except Exception:
                pass
            finally:
                writer.close()

        async def serve(client_reader, client_writer):
            try:
                reader, writer = await asyncio.open_connection("127.0.0.1", backend)
            except OSError:
                client_writer.close()
                return
            await asyncio.gather(relay(client_reader, writer), relay(reader, client_writer))

        async def main():
            context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
            context.load_cert_chain(certificate, key)
            server = await asyncio.start_server(serve, "127.0.0.1", 0, ssl=context)
            print(server.sockets[0].getsockname()[1], flush=True)
            async with server:
                await server.serve_forever()

        asyncio.run(main())
        """
}
