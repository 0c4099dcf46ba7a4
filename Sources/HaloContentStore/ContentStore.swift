import GRDB

/// Placeholder until the content store lands.
public enum ContentStoreSchema {
    public static let version = 1
}
