import HaloContentStore

/// Placeholder until the SDK lands.
public enum HaloServicesInfo {
    public static let sdkVersion = "0.1.0"
}
