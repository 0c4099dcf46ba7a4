import Crypto
import Foundation

/// The SHA-256 hashes of the public keys (SubjectPublicKeyInfo) the SDK accepts from a server.
///
/// Read from a folder of certificates (`.cer`, `.crt`, `.der` in DER form, `.pem` with one or
/// more `CERTIFICATE` blocks): the seed's SSL pinning. The transport hands them to libcurl's
/// `CURLOPT_PINNEDPUBLICKEY`, which compares them with the key of the server's leaf certificate:
/// a pinned key is trusted even when self-signed, any other key is refused
/// (`HaloError.sslPinningFailed`). An empty folder pins nothing: certificate authorities decide,
/// as in a browser.
public struct PinnedPublicKeys: Sendable, Equatable {
    /// Base64 SHA-256 digests of DER SubjectPublicKeyInfo structures.
    public let sha256Base64: [String]
    /// The folder they were read from, named when a server is refused.
    public let folder: URL?

    public init(sha256Base64: [String], folder: URL? = nil) {
        self.sha256Base64 = sha256Base64
        self.folder = folder
    }

    /// The certificate file extensions read from a pinning folder.
    public static let certificateExtensions: Set<String> = ["cer", "crt", "der", "pem"]

    /// Reads every certificate in `folder`: nil when the folder does not exist or holds no
    /// certificate file. A folder that exists but cannot be read, or a certificate file that is
    /// not a certificate, is an error: pins were meant and cannot be honoured.
    public static func read(from folder: URL) throws(HaloError) -> PinnedPublicKeys? {
        guard FileManager.default.fileExists(atPath: folder.path) else { return nil }
        let files: [URL]
        do {
            files = try FileManager.default.contentsOfDirectory(at: folder, includingPropertiesForKeys: nil)
                .filter { certificateExtensions.contains($0.pathExtension.lowercased()) }
                .sorted { $0.path < $1.path }
        } catch {
            throw .configuration(
                message: "The certificates folder \(folder.path) cannot be read, so its pinned certificates cannot be checked")
        }
        var hashes: [String] = []
        for file in files {
            guard let data = try? Data(contentsOf: file) else {
                throw .configuration(message: "The pinned certificate \(file.path) cannot be read")
            }
            for der in derCertificates(in: data) {
                guard let spki = DERCertificate.subjectPublicKeyInfo(of: der) else {
                    throw .configuration(message: "\(file.path) is not a valid X.509 certificate")
                }
                hashes.append(spkiDigest(spki))
            }
        }
        return hashes.isEmpty ? nil : PinnedPublicKeys(sha256Base64: hashes, folder: folder)
    }

    /// The pin of a key: base64 SHA-256 of its DER SubjectPublicKeyInfo (as `openssl pkey -pubin
    /// -outform der | openssl dgst -sha256 -binary | base64` prints it).
    static func spkiDigest(_ spki: Data) -> String { Data(SHA256.hash(data: spki)).base64EncodedString() }

    /// The value of `CURLOPT_PINNEDPUBLICKEY`: `sha256//<b64>;sha256//<b64>…`.
    var curlPinString: String { sha256Base64.map { "sha256//\($0)" }.joined(separator: ";") }

    /// PEM files may hold several certificates; anything else is taken as one DER certificate.
    static func derCertificates(in data: Data) -> [Data] {
        guard let text = String(data: data, encoding: .utf8), text.contains("-----BEGIN CERTIFICATE-----") else {
            return [data]
        }
        var result: [Data] = []
        var body: String?
        for line in text.split(whereSeparator: \.isNewline) {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if trimmed == "-----BEGIN CERTIFICATE-----" {
                body = ""
            } else if trimmed == "-----END CERTIFICATE-----" {
                if let base64 = body, let der = Data(base64Encoded: base64) { result.append(der) }
                body = nil
            } else if body != nil {
                body? += trimmed
            }
        }
        return result
    }
}

/// Just enough DER to find a certificate's SubjectPublicKeyInfo (RFC 5280 §4.1).
enum DERCertificate {
    /// One TLV element: its tag and where its content and the whole element lie in the buffer.
    private struct Element { let tag: UInt8; let content: Range<Int>; let whole: Range<Int> }

    private static func element(in bytes: [UInt8], at start: Int, limit: Int) -> Element? {
        guard start + 2 <= limit else { return nil }
        let tag = bytes[start]
        var index = start + 1
        let first = Int(bytes[index]); index += 1
        var length = 0
        if first < 0x80 {
            length = first
        } else {
            let count = first & 0x7f
            guard count > 0, count <= 4, index + count <= limit else { return nil }
            for _ in 0..<count { length = length << 8 | Int(bytes[index]); index += 1 }
        }
        guard index + length <= limit else { return nil }
        return Element(tag: tag, content: index..<index + length, whole: start..<index + length)
    }

    /// Certificate ::= SEQUENCE { tbsCertificate SEQUENCE { [0] version?, serial, signature,
    /// issuer, validity, subject, subjectPublicKeyInfo, … }, … }
    static func subjectPublicKeyInfo(of der: Data) -> Data? {
        let bytes = [UInt8](der)
        guard let certificate = element(in: bytes, at: 0, limit: bytes.count), certificate.tag == 0x30,
            let tbs = element(in: bytes, at: certificate.content.lowerBound, limit: certificate.content.upperBound),
            tbs.tag == 0x30
        else { return nil }
        var cursor = tbs.content.lowerBound
        var fields: [Element] = []
        while cursor < tbs.content.upperBound, fields.count < 8 {
            guard let field = element(in: bytes, at: cursor, limit: tbs.content.upperBound) else { return nil }
            fields.append(field)
            cursor = field.whole.upperBound
        }
        // With the explicit [0] version the key info is the 7th field, without it the 6th.
        let index = fields.first?.tag == 0xa0 ? 6 : 5
        guard fields.count > index, fields[index].tag == 0x30 else { return nil }
        return Data(bytes[fields[index].whole])
    }
}
