/// The stream header of a YUV4MPEG2 (Y4M) file.
public struct Y4MHeader: Sendable, Equatable, Codable {
    /// The largest width or height Confer accepts, so a hostile header cannot demand gigabytes.
    public static let maxDimension = 16_384
    /// The chroma tags that mean 4:2:0, the only sampling Confer reads. Each differs
    /// only in chroma siting, which I420 processing here does not use.
    public static let supportedChroma: Set<String> = ["420", "420jpeg", "420paldv", "420mpeg2"]

    /// Luma width in pixels (W).
    public var width: Int
    /// Luma height in pixels (H).
    public var height: Int
    /// Frames per second as a fraction (F): numerator.
    public var frameRateNumerator: Int
    /// Frames per second as a fraction (F): denominator.
    public var frameRateDenominator: Int
    /// Interlacing mode letter (I): "p" progressive, "t"/"b" field order, "m" mixed; "?" unknown.
    public var interlacing: String
    /// Pixel aspect ratio (A) numerator; 0 when unknown.
    public var pixelAspectNumerator: Int
    /// Pixel aspect ratio (A) denominator; 0 when unknown.
    public var pixelAspectDenominator: Int
    /// The chroma tag (C) without its "C", such as "420jpeg"; "420" when the tag is absent.
    public var chroma: String

    /// A progressive 4:2:0 header.
    public init(width: Int, height: Int, frameRateNumerator: Int = 30, frameRateDenominator: Int = 1,
                interlacing: String = "p", pixelAspectNumerator: Int = 1, pixelAspectDenominator: Int = 1,
                chroma: String = "420jpeg") {
        self.width = width
        self.height = height
        self.frameRateNumerator = frameRateNumerator
        self.frameRateDenominator = frameRateDenominator
        self.interlacing = interlacing
        self.pixelAspectNumerator = pixelAspectNumerator
        self.pixelAspectDenominator = pixelAspectDenominator
        self.chroma = chroma
    }

    /// Frames per second.
    public var frameRate: Double { Double(frameRateNumerator) / Double(frameRateDenominator) }

    /// The header line, including its final newline.
    public var line: String {
        "YUV4MPEG2 W\(width) H\(height) F\(frameRateNumerator):\(frameRateDenominator) I\(interlacing) "
            + "A\(pixelAspectNumerator):\(pixelAspectDenominator) C\(chroma)\n"
    }

    /// Parses a header line (without its newline); `offset` is where the line starts in the input.
    static func parse(_ line: ArraySlice<UInt8>, offset: Int) throws(MediaFileError) -> Y4MHeader {
        let fields = line.split(separator: UInt8(ascii: " "), omittingEmptySubsequences: true)
        guard let magic = fields.first, magic.elementsEqual("YUV4MPEG2".utf8) else {
            throw MediaFileError(.malformed, format: "Y4M", offset: offset, "missing the YUV4MPEG2 signature")
        }
        var width: Int?
        var height: Int?
        var header = Y4MHeader(width: 0, height: 0, frameRateNumerator: 25, frameRateDenominator: 1,
                               interlacing: "?", pixelAspectNumerator: 0, pixelAspectDenominator: 0, chroma: "420")
        for field in fields.dropFirst() {
            let tag = field.first!
            let value = field.dropFirst()
            let at = offset + (field.startIndex - line.startIndex)
            switch tag {
            case UInt8(ascii: "W"): width = try number(value, "width", at)
            case UInt8(ascii: "H"): height = try number(value, "height", at)
            case UInt8(ascii: "F"):
                let (n, d) = try ratio(value, "frame rate", at)
                // F0:0 means "unknown"; use 25 fps as FFmpeg does.
                if n == 0 && d == 0 { break }
                guard n > 0, d > 0 else {
                    throw MediaFileError(.malformed, format: "Y4M", offset: at, "frame rate \(n):\(d) is not positive")
                }
                header.frameRateNumerator = n
                header.frameRateDenominator = d
            case UInt8(ascii: "A"):
                (header.pixelAspectNumerator, header.pixelAspectDenominator) = try ratio(value, "pixel aspect", at)
            case UInt8(ascii: "I"):
                header.interlacing = String(decoding: value, as: UTF8.self)
            case UInt8(ascii: "C"):
                let chroma = String(decoding: value, as: UTF8.self)
                guard supportedChroma.contains(chroma) else {
                    throw MediaFileError(.unsupported, format: "Y4M", offset: at,
                                         "chroma C\(chroma) is not supported; Confer reads 4:2:0 (C420, C420jpeg, C420paldv, C420mpeg2) only")
                }
                header.chroma = chroma
            default:
                break  // X (extension) and unknown tags are ignored, as the format asks.
            }
        }
        guard let width else { throw MediaFileError(.malformed, format: "Y4M", offset: offset, "header has no width (W)") }
        guard let height else { throw MediaFileError(.malformed, format: "Y4M", offset: offset, "header has no height (H)") }
        guard width > 0, height > 0 else {
            throw MediaFileError(.malformed, format: "Y4M", offset: offset, "picture size \(width)×\(height) is empty")
        }
        guard width <= maxDimension, height <= maxDimension else {
            throw MediaFileError(.unsupported, format: "Y4M", offset: offset,
                                 "picture size \(width)×\(height) exceeds the \(maxDimension)×\(maxDimension) limit")
        }
        header.width = width
        header.height = height
        return header
    }

    private static func number(_ digits: ArraySlice<UInt8>, _ what: String, _ at: Int) throws(MediaFileError) -> Int {
        // Nine digits cannot overflow Int and exceed every dimension or rate Confer accepts.
        guard !digits.isEmpty, digits.count <= 9, digits.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else {
            throw MediaFileError(.malformed, format: "Y4M", offset: at,
                                 "\(what) \"\(String(decoding: digits, as: UTF8.self))\" is not a number of at most 9 digits")
        }
        return digits.reduce(0) { $0 * 10 + Int($1 - 0x30) }
    }

    private static func ratio(_ text: ArraySlice<UInt8>, _ what: String, _ at: Int) throws(MediaFileError) -> (Int, Int) {
        guard let colon = text.firstIndex(of: UInt8(ascii: ":")) else {
            throw MediaFileError(.malformed, format: "Y4M", offset: at, "\(what) has no ':'")
        }
        return (try number(text[..<colon], what, at), try number(text[(colon + 1)...], what, at))
    }
}
