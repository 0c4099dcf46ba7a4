import CCurl
import Crypto
import Foundation

/// The certificate a TLS server presents: what a user is shown before pinning it, and what a
/// refusal message names.
public struct ServerCertificate: Sendable, Equatable {
    /// The subject, as OpenSSL prints it (e.g. `CN = halo.example.com, O = Example`).
    public let subject: String
    /// Who issued it (the subject again when self-signed).
    public let issuer: String
    /// The end of its validity, as OpenSSL prints it (e.g. `Nov 24 02:00:00 2027 GMT`).
    public let expires: String
    /// The certificate itself (DER).
    public let der: Data

    /// What pinning compares: base64 SHA-256 of the public key (SubjectPublicKeyInfo).
    public var publicKeySHA256: String {
        DERCertificate.subjectPublicKeyInfo(of: der).map(PinnedPublicKeys.spkiDigest) ?? ""
    }

    /// The certificate's SHA-256 fingerprint as browsers show it (`AB:CD:…`).
    public var fingerprintSHA256: String {
        SHA256.hash(data: der).map { String(format: "%02X", $0) }.joined(separator: ":")
    }

    /// PEM text, as written to the certificates folder.
    public var pem: String {
        let base64 = der.base64EncodedString(options: [.lineLength64Characters, .endLineWithLineFeed])
        return "-----BEGIN CERTIFICATE-----\n\(base64)\n-----END CERTIFICATE-----\n"
    }

    /// Pins this certificate: writes it to `folder` (created private if missing) as
    /// `<host>.pem`, next to any pinned before. A pin this replaces is kept in the answer, so the
    /// user's Undo can restore it.
    @discardableResult
    public func pin(in folder: URL, host: String) throws(HaloError) -> CertificatePin {
        let name = host.map { $0.isLetter || $0.isNumber || $0 == "." || $0 == "-" ? String($0) : "_" }.joined()
        let file = folder.appendingPathComponent("\(name.isEmpty ? "server" : name).pem")
        let replaced = try? Data(contentsOf: file)
        do {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            try Data(pem.utf8).write(to: file, options: .atomic)
        } catch {
            throw .configuration(message: "Cannot save the certificate in \(folder.path): \(error.localizedDescription)")
        }
        return CertificatePin(file: file, replaced: replaced)
    }

    /// True when `folder` holds a certificate with this one's public key.
    public func isPinned(in folder: URL) -> Bool {
        guard let pins = try? PinnedPublicKeys.read(from: folder) else { return false }
        return pins.sha256Base64.contains(publicKeySHA256)
    }
}

/// A certificate written to the certificates folder, with what it replaced.
public struct CertificatePin: Sendable, Equatable {
    /// The file written.
    public let file: URL
    /// The earlier contents of `file` (a pin for the same host), nil when it was new.
    public let replaced: Data?

    /// Takes the pin back: restores what it replaced, or removes the file.
    public func undo() throws(HaloError) {
        do {
            if let replaced {
                try replaced.write(to: file, options: .atomic)
            } else if FileManager.default.fileExists(atPath: file.path) {
                try FileManager.default.removeItem(at: file)
            }
        } catch {
            throw .configuration(message: "Cannot undo the pin in \(file.path): \(error.localizedDescription)")
        }
    }
}

extension CurlTransport {
    /// The certificate the server of `url` presents, read without trusting it (a TLS handshake
    /// and no request): for showing a user before they pin it.
    public func presentedCertificate(at url: URL, timeout: TimeInterval = 15) async throws(HaloError) -> ServerCertificate {
        guard url.scheme?.lowercased() == "https" else {
            throw .configuration(message: "\(url.absoluteString) does not use https, so it has no certificate")
        }
        let result = await BlockingWork.run(name: "halo-certificate") {
            CertificateProbe.presentedCertificate(at: url, timeout: timeout)
        }
        return try result.get()
    }
}

/// Reads a server's certificate with libcurl's CERTINFO on a handle of its own.
enum CertificateProbe {
    static func presentedCertificate(at url: URL, timeout: TimeInterval) -> Result<ServerCertificate, HaloError> {
        let host = url.host ?? url.absoluteString
        guard let curl = halo_curl_easy_init() else {
            return .failure(.configuration(message: "libcurl is not usable (install libcurl4)"))
        }
        defer { halo_curl_easy_cleanup(curl) }
        _ = halo_curl_setopt_string(curl, CURLOPT_URL, url.absoluteString)
        _ = halo_curl_setopt_string(curl, CURLOPT_PROTOCOLS_STR, "https")
        _ = halo_curl_setopt_long(curl, CURLOPT_NOSIGNAL, 1)
        _ = halo_curl_setopt_long(curl, CURLOPT_CONNECT_ONLY, 1)
        _ = halo_curl_setopt_long(curl, CURLOPT_CONNECTTIMEOUT, max(1, Int(timeout.rounded(.up))))
        // Only looked at, never trusted: nothing is sent over this connection.
        _ = halo_curl_setopt_long(curl, CURLOPT_SSL_VERIFYPEER, 0)
        _ = halo_curl_setopt_long(curl, CURLOPT_SSL_VERIFYHOST, 0)
        _ = halo_curl_setopt_long(curl, CURLOPT_CERTINFO, 1)
        let code = halo_curl_easy_perform(curl)
        guard code == CURLE_OK else {
            return .failure(.network(message: "Cannot reach \(host) to read its certificate"))
        }
        var raw: UnsafeMutableRawPointer?
        guard halo_curl_getinfo_pointer(curl, CURLINFO_CERTINFO, &raw) == CURLE_OK,
            let info = raw?.assumingMemoryBound(to: curl_certinfo.self).pointee, info.num_of_certs > 0,
            let leaf = info.certinfo?[0]
        else { return .failure(.invalidResponse(status: nil, message: "\(host) presented no certificate")) }
        var fields: [String: String] = [:]
        var node: UnsafeMutablePointer<curl_slist>? = leaf
        while let current = node {
            if let text = current.pointee.data.map({ String(cString: $0) }), let colon = text.firstIndex(of: ":") {
                fields[String(text[..<colon])] = String(text[text.index(after: colon)...])
            }
            node = current.pointee.next
        }
        guard let pem = fields["Cert"], let der = PinnedPublicKeys.derCertificates(in: Data(pem.utf8)).first,
            DERCertificate.subjectPublicKeyInfo(of: der) != nil
        else { return .failure(.invalidResponse(status: nil, message: "\(host) presented a certificate that cannot be read")) }
        return .success(
            ServerCertificate(
                subject: fields["Subject"] ?? "", issuer: fields["Issuer"] ?? "", expires: fields["Expire date"] ?? "", der: der))
    }
}

/// The sentence for a refused certificate: what was expected, what was presented, and where to
/// change it.
struct CertificateRefusal {
    let host: String
    let presented: ServerCertificate?
    let trust: TLSTrust
    let folder: URL?
    /// The verifier's reason when certificate authorities refused (nil for a pin mismatch).
    let verifierReason: String?

    var sentence: String {
        let shown = presented.map { "a certificate for “\($0.subject)” (public key SHA-256 \($0.publicKeySHA256))" } ?? "a certificate"
        let place = folder.map { "pin it on the Connect page or add it to \($0.path)" } ?? "pin it on the Connect page"
        switch trust {
        case .pinned(let keys):
            let pinned = keys.folder.map { "pinned in \($0.path)" } ?? "pinned"
            let trusted =
                keys.sha256Base64.count == 1
                ? "the certificate \(pinned) is" : "the \(keys.sha256Base64.count) certificates \(pinned) are"
            return "Only \(trusted) trusted, and \(host) presented \(shown). If this is your server, \(place)."
        case .certificateAuthorities:
            let issuer = presented.map { ", issued by “\($0.issuer)”," } ?? ""
            return
                "\(host) presented \(shown)\(issuer) which no trusted certificate authority vouches for: \(Self.plainReason(verifierReason ?? "")). If this is your server, \(place)."
        }
    }

    /// OpenSSL's reasons in plain words; anything else as it came.
    static func plainReason(_ reason: String) -> String {
        let text = reason.lowercased()
        if text.contains("self-signed") || text.contains("self signed") { return "it is self-signed" }
        if text.contains("unable to get local issuer") { return "its issuer is unknown" }
        if text.contains("expired") { return "it has expired" }
        if text.contains("not yet valid") { return "it is not valid yet" }
        if text.contains("subject name") || text.contains("does not match") { return "it was issued for another name" }
        return reason.isEmpty ? "it could not be verified" : reason
    }
}
