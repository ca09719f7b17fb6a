// ConferJobs: whole jobs over media files, run to completion — transcode, mix (Mix/),
// render, snapshot, generate, compare, the demo — and the media files they read and write
// through the codecs (Files/). Each job validates its options first and throws a JobError
// whose kind says what to fix.
