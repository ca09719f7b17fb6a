extension ReceivePipeline {
    /// A pipeline whose RTCP datagrams and rendered frames come out as async sequences, for
    /// an app that sends feedback and shows pictures from other tasks. At most `buffering`
    /// of each wait unread, the oldest dropped first (a late picture is worth less than the
    /// next one).
    public static func withStreams(configuration: ReceivePipelineConfiguration, buffering: Int = 64)
        throws -> (pipeline: ReceivePipeline, feedback: AsyncStream<[UInt8]>, frames: AsyncStream<ReceivedVideoFrame>) {
        let (feedback, feedbackContinuation) = AsyncStream.makeStream(of: [UInt8].self, bufferingPolicy: .bufferingNewest(buffering))
        let (frames, frameContinuation) = AsyncStream.makeStream(of: ReceivedVideoFrame.self,
                                                                 bufferingPolicy: .bufferingNewest(buffering))
        let pipeline = try ReceivePipeline(configuration: configuration,
                                           output: { feedbackContinuation.yield(Array($0)) },
                                           render: { frameContinuation.yield($0) })
        return (pipeline, feedback, frames)
    }
}
