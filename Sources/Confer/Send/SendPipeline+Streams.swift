extension SendPipeline {
    /// A pipeline whose datagrams come out as an async sequence, for an app that hands them
    /// to a socket from another task. Each datagram is copied into an array (the one
    /// allocation per packet the closure form avoids); at most `buffering` wait unread, the
    /// oldest dropped first, as a congested socket would.
    public static func withDatagramStream(configuration: SendPipelineConfiguration, buffering: Int = 1024)
        throws -> (pipeline: SendPipeline, datagrams: AsyncStream<[UInt8]>) {
        let (stream, continuation) = AsyncStream.makeStream(of: [UInt8].self, bufferingPolicy: .bufferingNewest(buffering))
        let pipeline = try SendPipeline(configuration: configuration) { continuation.yield(Array($0)) }
        return (pipeline, stream)
    }
}
