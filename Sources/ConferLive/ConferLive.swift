// ConferLive: the pipelines behind real UDP sockets on the wall clock. Send/ is LiveSender
// (`confer send`: a file encoded live through SendPipeline, answering its feedback),
// Receive/ is LiveReceiver (`confer receive`: a ReceivePipeline, or recording as assembled),
// Realtime/ the loop that paces them and the queues between the socket and the pipeline.
