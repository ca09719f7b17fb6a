public import ArgumentParser
import ConferSession
import ConferMedia
import ConferJobs

extension Codec: ExpressibleByArgument {}
extension MemberRole: ExpressibleByArgument {}
extension CallRole: ExpressibleByArgument {}
extension CallEndResult: ExpressibleByArgument {}
extension VideoPattern: ExpressibleByArgument {}
