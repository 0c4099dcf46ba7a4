import Foundation

/// Where an answer may come from (the seed's `defaultOfflinePolicy`, also settable per request).
///
/// The sdk branch declares the same enum (same cases and raw values) in Core/Configuration.swift;
/// when both are merged, this file is the one to delete.
public enum OfflinePolicy: String, Sendable, Codable {
    /// Network only: nothing is stored, a network failure is the caller's error.
    case none
    /// Network first; the answer is stored; when the network fails, the stored answer (or the
    /// local equivalent, e.g. a search over synced content) is returned instead.
    case loadAndStoreLocalData
    /// Cache only: no request is made.
    case returnLocalDataDontLoad
}

