public import ArgumentParser
import ConferMedia
import ConferJobs

extension Codec: ExpressibleByArgument {}
extension VideoPattern: ExpressibleByArgument {}
