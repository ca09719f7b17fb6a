import FuzzSupport
import ConferSRTP

/// Every SDES and key text form: a=crypto attributes, inline key parameters, the CLI form.
/// Anything parsed must print back to text that parses to the same value.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    if let attribute = try? SDESCryptoAttribute(parsing: text) {
        precondition((try? SDESCryptoAttribute(parsing: attribute.attributeLine)) == attribute)
    }
    for profile in SRTPProfile.allCases {
        if let key = try? SRTPMasterKey(profile: profile, inlineKeyParameter: text) {
            precondition((try? SRTPMasterKey(profile: profile, inlineKeyParameter: key.inlineKeyParameter)) == key)
        }
    }
    if let key = try? SRTPMasterKey(commandLineForm: text) {
        precondition((try? SRTPMasterKey(commandLineForm: key.commandLineForm)) == key)
    }
    return 0
}

@_cdecl("FuzzSDES_main")
func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runLibFuzzer(argc, argv) { data, size in fuzz(data, size) }
}
