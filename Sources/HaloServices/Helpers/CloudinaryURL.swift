import Foundation

/// Rewrites a Cloudinary image URL with transformation parameters (PROTOCOL §16), e.g.
/// `CloudinaryURL(url: u).width(pixels: 200).height(pixels: 100).url` turns
/// `…/image/upload/sample.jpg` into `…/image/upload/w_200,h_100/sample.jpg`.
///
/// Only URLs containing `cloudinary.com` and `/upload/` are rewritten; others come back as given.
/// With no parameter chosen nothing is inserted (Android's behaviour; iOS inserted an empty segment).
public struct CloudinaryURL: Hashable, Sendable {
    /// The URL as given.
    public let originalURL: String
    /// The transformation tokens in the order they were added (`w_200`, `c_fill`, …).
    public private(set) var parameters: [String] = []

    public init(url: String) { originalURL = url }

    /// The rewritten URL text.
    public var urlString: String {
        guard !parameters.isEmpty, originalURL.contains("cloudinary.com"),
            let upload = originalURL.range(of: "/upload/")
        else { return originalURL }
        return originalURL[..<upload.upperBound] + parameters.joined(separator: ",") + "/"
            + originalURL[upload.upperBound...]
    }

    /// The rewritten URL; `nil` only when the given text was not a URL.
    public var url: URL? { URL(string: urlString) }

    private func adding(_ token: String) -> CloudinaryURL {
        var copy = self
        copy.parameters.append(token)
        return copy
    }

    // MARK: Size and position

    public func width(pixels: Int) -> CloudinaryURL { adding("w_\(pixels)") }
    /// Width as a fraction of the original (`w_0.5`).
    public func width(percent: Double) -> CloudinaryURL { adding("w_\(percent)") }
    public func height(pixels: Int) -> CloudinaryURL { adding("h_\(pixels)") }
    public func height(percent: Double) -> CloudinaryURL { adding("h_\(percent)") }
    public func crop(mode: ImageCropMode) -> CloudinaryURL { adding("c_\(mode.rawValue)") }
    /// Aspect ratio as `16:9`.
    public func aspectRatio(ratio: String) -> CloudinaryURL { adding("ar_\(ratio)") }
    public func aspectRatio(percent: Double) -> CloudinaryURL { adding("ar_\(percent)") }
    public func gravity(_ gravity: ImageGravity) -> CloudinaryURL { adding("g_\(gravity.rawValue)") }
    public func zoom(percent: Double) -> CloudinaryURL { adding("z_\(percent)") }
    public func xPos(pixels: Int) -> CloudinaryURL { adding("x_\(pixels)") }
    public func xPos(percent: Double) -> CloudinaryURL { adding("x_\(percent)") }
    public func yPos(pixels: Int) -> CloudinaryURL { adding("y_\(pixels)") }
    public func yPos(percent: Double) -> CloudinaryURL { adding("y_\(percent)") }

    // MARK: Appearance

    /// Quality, rendered as iOS did (`q_80.0`).
    public func quality(percent: Double) -> CloudinaryURL { adding("q_\(percent)") }
    public func radius(pixels: Int) -> CloudinaryURL { adding("r_\(pixels)") }
    public func maxRadius() -> CloudinaryURL { adding("r_max") }
    public func rotate(_ rotation: ImageRotation) -> CloudinaryURL { adding("a_\(rotation.token)") }
    public func addEffect(_ effect: ImageEffect) -> CloudinaryURL { adding("e_\(effect.token)") }
    public func addEffects(_ effects: [ImageEffect]) -> CloudinaryURL {
        effects.reduce(self) { $0.addEffect($1) }
    }
    public func opacity(_ opacity: Int) -> CloudinaryURL { adding("o_\(opacity)") }
    /// A border such as `4px_solid_black`.
    public func border(_ border: String) -> CloudinaryURL { adding("bo_\(border)") }
    public func backgroundColor(identifier color: String) -> CloudinaryURL { adding("b_\(color)") }
    /// Background as a hex colour (`b_rgb:<hex>`).
    public func backgroundColor(rgb color: String) -> CloudinaryURL { adding("b_rgb:\(color)") }
    public func overlay(id: String) -> CloudinaryURL { adding("l_\(id)") }
    public func overlayText(_ text: String) -> CloudinaryURL { adding("l_text:\(text)") }
    public func underlay(id: String) -> CloudinaryURL { adding("u_\(id)") }
    public func defaultImage(id: String) -> CloudinaryURL { adding("d_\(id)") }
    public func delay(_ delay: Int) -> CloudinaryURL { adding("dl_\(delay)") }
    public func color(identifier color: String) -> CloudinaryURL { adding("co_\(color)") }
    public func color(rgb color: String) -> CloudinaryURL { adding("co_rgb:\(color)") }
    /// Device pixel ratio (`dpr_2.0`).
    public func devicePixelRatio(_ ratio: Double) -> CloudinaryURL { adding("dpr_\(ratio)") }
    public func page(_ page: Int) -> CloudinaryURL { adding("pg_\(page)") }
    public func dpi(_ dpi: Int) -> CloudinaryURL { adding("dn_\(dpi)") }
    public func addFlags(_ flags: [ImageFlag]) -> CloudinaryURL {
        flags.isEmpty ? self : adding("fl_" + flags.map(\.rawValue).joined(separator: "."))
    }
    public func namedTransformation(_ name: String) -> CloudinaryURL { adding("t_\(name)") }
}

/// Crop modes (`c_<mode>`).
public enum ImageCropMode: String, Hashable, Sendable, CaseIterable {
    case scale, fit, limit, mfit, fill, lfill, pad, lpad, mpad, crop, thumb
    case imaggaCrop = "imagga_crop"
    case imaggaScale = "imagga_scale"
}

/// Gravity (`g_<g>`).
public enum ImageGravity: String, Hashable, Sendable, CaseIterable {
    case northWest = "north_west", north, northEast = "north_east", west, center, east
    case south, southWest = "south_west", southEast = "south_east", xyCenter = "xy_center"
    case face, faceCenter = "face:center", faces, facesCenter = "faces:center"
    case advFace = "adv_face", advFaces = "adv_faces", advEyes = "adv_eyes"
    case custom, customFace = "custom:face", customFaces = "custom:faces"
    case customAdvFace = "custom:adv_face", customAdvFaces = "custom:adv_faces"
}

/// Rotation (`a_<v>`): a named mode or degrees (`a_12.0`).
public enum ImageRotation: Hashable, Sendable {
    case autoRight, autoLeft, ignore, verticalFlip, horizontalFlip
    case degrees(Double)

    var token: String {
        switch self {
        case .autoRight: return "auto_right"
        case .autoLeft: return "auto_left"
        case .ignore: return "ignore"
        case .verticalFlip: return "vflip"
        case .horizontalFlip: return "hflip"
        case .degrees(let degrees): return "\(degrees)"
        }
    }
}

/// Flags (`fl_<a>.<b>`).
public enum ImageFlag: String, Hashable, Sendable, CaseIterable {
    case keepIptc = "keep_iptc", attachment, relative, regionRelative = "region_relative", progressive, png8
    case forceStrip = "force_strip", cutter, clip, awebp, layerApply = "layer_apply"
    case ignoreAspectRatio = "ignore_aspect_ratio", tiled, lossy, stripProfile = "strip_profile", rasterize
    case textNoTrim = "text_no_trim"
}

/// An effect (`e_<name>[:<value>]`). Effects with a level accept it only inside the range the
/// SDKs checked; a level outside it is dropped and the effect applies with its default.
public struct ImageEffect: Hashable, Sendable {
    /// The effect name as Cloudinary spells it.
    public let name: String
    /// The level, when given and in range.
    public let value: String?

    private init(_ name: String, level: Int?, range: ClosedRange<Int>) {
        self.name = name
        self.value = level.flatMap { range.contains($0) ? String($0) : nil }
    }

    private init(_ name: String, parameters: String? = nil) {
        self.name = name
        self.value = parameters
    }

    var token: String { value.map { "\(name):\($0)" } ?? name }

    // −100…100
    public static func hue(_ level: Int? = nil) -> ImageEffect { .init("hue", level: level, range: -100...100) }
    public static func red(_ level: Int? = nil) -> ImageEffect { .init("red", level: level, range: -100...100) }
    public static func green(_ level: Int? = nil) -> ImageEffect { .init("green", level: level, range: -100...100) }
    public static func blue(_ level: Int? = nil) -> ImageEffect { .init("blue", level: level, range: -100...100) }
    public static func saturation(_ level: Int? = nil) -> ImageEffect { .init("saturation", level: level, range: -100...100) }
    public static func contrast(_ level: Int? = nil) -> ImageEffect { .init("contrast", level: level, range: -100...100) }
    public static func vibrance(_ level: Int? = nil) -> ImageEffect { .init("vibrance", level: level, range: -100...100) }
    public static func fillLight(_ level: Int? = nil) -> ImageEffect { .init("fill_light", level: level, range: -100...100) }
    // Other ranges
    public static func brightness(_ level: Int? = nil) -> ImageEffect { .init("brightness", level: level, range: -99...100) }
    public static func sepia(_ level: Int? = nil) -> ImageEffect { .init("sepia", level: level, range: 1...100) }
    public static func colorize(_ level: Int? = nil) -> ImageEffect { .init("colorize", level: level, range: 0...100) }
    public static func trim(_ level: Int? = nil) -> ImageEffect { .init("trim", level: level, range: 0...100) }
    public static func shadow(_ level: Int? = nil) -> ImageEffect { .init("shadow", level: level, range: 0...100) }
    public static func oilPaint(_ level: Int? = nil) -> ImageEffect { .init("oil_paint", level: level, range: 0...100) }
    public static func vignette(_ level: Int? = nil) -> ImageEffect { .init("vignette", level: level, range: 0...100) }
    public static func gradientFade(_ level: Int? = nil) -> ImageEffect { .init("gradient_fade", level: level, range: 0...100) }
    public static func gamma(_ level: Int? = nil) -> ImageEffect { .init("gamma", level: level, range: -50...150) }
    public static func pixelate(_ level: Int? = nil) -> ImageEffect { .init("pixelate", level: level, range: 1...200) }
    public static func pixelateFaces(_ level: Int? = nil) -> ImageEffect { .init("pixelate_faces", level: level, range: 1...200) }
    public static func blur(_ level: Int? = nil) -> ImageEffect { .init("blur", level: level, range: 1...2000) }
    public static func blurFaces(_ level: Int? = nil) -> ImageEffect { .init("blur_faces", level: level, range: 1...2000) }
    public static func sharpen(_ level: Int? = nil) -> ImageEffect { .init("sharpen", level: level, range: 1...2000) }
    public static func unsharpMask(_ level: Int? = nil) -> ImageEffect { .init("unsharp_mask", level: level, range: 1...2000) }
    // No level
    public static let negate = ImageEffect("negate")
    public static let grayscale = ImageEffect("grayscale")
    public static let blackwhite = ImageEffect("blackwhite")
    public static let autoContrast = ImageEffect("auto_contrast")
    public static let autoColor = ImageEffect("auto_color")
    public static let improve = ImageEffect("improve")
    public static let autoBrightness = ImageEffect("auto_brightness")
    public static let viesusCorrect = ImageEffect("viesus_correct")
    public static let screen = ImageEffect("screen")
    public static let multiply = ImageEffect("multiply")
    public static let overlay = ImageEffect("overlay")
    public static let makeTransparent = ImageEffect("make_transparent")
    public static let displace = ImageEffect("displace")
    public static let redeye = ImageEffect("redeye")
    public static let advRedeye = ImageEffect("adv_redeye")
    // Geometry
    /// Moves the four corners to the given points (`distort:x1:y1:x2:y2:x3:y3:x4:y4`).
    public static func distort(
        x1: Int, y1: Int, x2: Int, y2: Int, x3: Int, y3: Int, x4: Int, y4: Int
    ) -> ImageEffect {
        ImageEffect("distort", parameters: [x1, y1, x2, y2, x3, y3, x4, y4].map(String.init).joined(separator: ":"))
    }
    /// Skews by the given angles (`shear:x:y`).
    public static func shear(x: Double, y: Double) -> ImageEffect { ImageEffect("shear", parameters: "\(x):\(y)") }
}
