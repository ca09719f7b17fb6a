public import ArgumentParser
import ConferSession
import ConferMedia
import ConferJobs

extension Codec: ExpressibleByArgument {}
extension MemberRole: ExpressibleByArgument {}
extension VideoPattern: ExpressibleByArgument {}
