// ConferLive: the pipelines behind real UDP sockets on the wall clock. Send/ is LiveSender
// (`confer send`: a file encoded live through SendPipeline, answering its feedback),
// Receive/ is LiveReceiver (`confer receive`: a ReceivePipeline, or recording as assembled),
// Meeting/ the live meeting's host and participant (a call's two sides are participants),
// Consent/ the consent checks that let media go only to an address that answered one,
// Forward/ the host's plain-RTP copy of the composite and mix for an SFU to fan out, and
// Realtime/ the loop that paces them and the queues between the socket and the pipeline.
