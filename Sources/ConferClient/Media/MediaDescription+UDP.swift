import ConferNet
import ConferSession

extension MediaDescription {
    /// ``alternates`` as addresses a media socket sends to.
    var alternateUDPAddresses: [UDPAddress] {
        (alternates ?? []).map { UDPAddress(host: $0.host, port: $0.port) }
    }
}
