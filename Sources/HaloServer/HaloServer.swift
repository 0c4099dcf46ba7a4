import Hummingbird
import HaloContentStore

/// Placeholder until the server lands.
public enum HaloServerInfo {
    public static let version = "0.1.0"
}
