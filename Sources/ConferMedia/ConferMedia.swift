// ConferMedia: what every other module shares — I420 video and PCM audio frames over pooled
// storage (Frames/), media time and clocks (Time/), byte sources and sinks (Bytes/), the
// container formats that need no codec (Files/: IVF, Y4M, WAV, Annex-B, PNG), drawing and
// synthetic sources (Drawing/, Generators/), libyuv scaling and resampling (Processing/),
// quality metrics (Metrics/).
