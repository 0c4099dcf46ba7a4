import XCTest

@testable import HaloServices

/// Cloudinary URL rewriting (PROTOCOL §16).
final class CloudinaryURLTests: XCTestCase {
    private let sample = "https://res.cloudinary.com/demo/image/upload/sample.jpg"

    func testProtocolExample() {
        XCTAssertEqual(
            CloudinaryURL(url: sample).width(pixels: 200).height(pixels: 100).urlString,
            "https://res.cloudinary.com/demo/image/upload/w_200,h_100/sample.jpg")
        XCTAssertEqual(
            CloudinaryURL(url: sample).width(pixels: 200).url?.absoluteString,
            "https://res.cloudinary.com/demo/image/upload/w_200/sample.jpg")
    }

    func testOnlyCloudinaryUploadURLsWithParametersAreRewritten() {
        XCTAssertEqual(CloudinaryURL(url: sample).urlString, sample, "no parameter: nothing inserted")
        XCTAssertEqual(
            CloudinaryURL(url: "https://example.com/image/upload/a.jpg").width(pixels: 1).urlString,
            "https://example.com/image/upload/a.jpg")
        XCTAssertEqual(
            CloudinaryURL(url: "https://res.cloudinary.com/demo/image/fetch/a.jpg").width(pixels: 1).urlString,
            "https://res.cloudinary.com/demo/image/fetch/a.jpg")
    }

    func testEveryOptionToken() {
        let url = CloudinaryURL(url: sample)
            .width(percent: 0.5).height(percent: 0.25).crop(mode: .imaggaScale).aspectRatio(ratio: "16:9")
            .aspectRatio(percent: 1.5).gravity(.faceCenter).zoom(percent: 1.2).xPos(pixels: 10).yPos(percent: 0.1)
            .xPos(percent: 0.2).yPos(pixels: 20).quality(percent: 80).radius(pixels: 5).maxRadius()
            .rotate(.autoRight).rotate(.degrees(12)).opacity(50).border("4px_solid_black")
            .backgroundColor(identifier: "blue").backgroundColor(rgb: "ff0000").overlay(id: "logo")
            .overlayText("Arial_20:Hi").underlay(id: "bg").defaultImage(id: "avatar.png").delay(30)
            .color(identifier: "green").color(rgb: "00ff00").devicePixelRatio(2).page(2).dpi(300)
            .addFlags([.keepIptc, .progressive]).namedTransformation("thumb").addEffect(.negate)
        XCTAssertEqual(
            url.parameters,
            [
                "w_0.5", "h_0.25", "c_imagga_scale", "ar_16:9", "ar_1.5", "g_face:center", "z_1.2", "x_10", "y_0.1",
                "x_0.2", "y_20", "q_80.0", "r_5", "r_max", "a_auto_right", "a_12.0", "o_50", "bo_4px_solid_black",
                "b_blue", "b_rgb:ff0000", "l_logo", "l_text:Arial_20:Hi", "u_bg", "d_avatar.png", "dl_30", "co_green",
                "co_rgb:00ff00", "dpr_2.0", "pg_2", "dn_300", "fl_keep_iptc.progressive", "t_thumb", "e_negate",
            ])
        XCTAssertTrue(url.urlString.hasPrefix("https://res.cloudinary.com/demo/image/upload/w_0.5,h_0.25,"))
        XCTAssertTrue(url.urlString.hasSuffix(",e_negate/sample.jpg"))
    }

    func testEffectRanges() {
        func token(_ effect: ImageEffect) -> String? { CloudinaryURL(url: sample).addEffect(effect).parameters.first }
        let cases: [(ImageEffect, ImageEffect, ImageEffect, String, String, String)] = [
            (.hue(-100), .hue(100), .hue(101), "e_hue:-100", "e_hue:100", "e_hue"),
            (.brightness(-99), .brightness(100), .brightness(-100), "e_brightness:-99", "e_brightness:100", "e_brightness"),
            (.sepia(1), .sepia(100), .sepia(0), "e_sepia:1", "e_sepia:100", "e_sepia"),
            (.vignette(0), .vignette(100), .vignette(101), "e_vignette:0", "e_vignette:100", "e_vignette"),
            (.gamma(-50), .gamma(150), .gamma(151), "e_gamma:-50", "e_gamma:150", "e_gamma"),
            (.pixelateFaces(1), .pixelateFaces(200), .pixelateFaces(201), "e_pixelate_faces:1", "e_pixelate_faces:200", "e_pixelate_faces"),
            (.blur(1), .unsharpMask(2000), .sharpen(2001), "e_blur:1", "e_unsharp_mask:2000", "e_sharpen"),
            (.fillLight(-100), .oilPaint(100), .trim(-1), "e_fill_light:-100", "e_oil_paint:100", "e_trim"),
        ]
        for (low, high, outside, lowToken, highToken, outsideToken) in cases {
            XCTAssertEqual(token(low), lowToken)
            XCTAssertEqual(token(high), highToken)
            XCTAssertEqual(token(outside), outsideToken, "an out-of-range level is dropped")
        }
        XCTAssertEqual(token(.saturation()), "e_saturation")
        XCTAssertEqual(token(.distort(x1: 5, y1: 34, x2: 70, y2: 10, x3: 70, y3: 75, x4: 5, y4: 55)), "e_distort:5:34:70:10:70:75:5:55")
        XCTAssertEqual(token(.shear(x: 40, y: 0)), "e_shear:40.0:0.0")
        XCTAssertEqual(CloudinaryURL(url: sample).addEffects([.grayscale, .blur(300)]).parameters, ["e_grayscale", "e_blur:300"])
        XCTAssertEqual(CloudinaryURL(url: sample).addFlags([]).parameters, [])
    }
}
