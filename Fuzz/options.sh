# Sourced by Fuzz/run and Fuzz/campaign: how libFuzzer runs each target.
# The pipeline targets decode their input into operations (datagrams, joins, stalls, lines of
# a meeting); their seeds are scripts of hundreds of them, so they need room to keep and grow
# long inputs, and -len_control=0 stops libFuzzer from first trying only short mutations
# (at 4096 bytes and the default length control a 400 s run never grew past 8 bytes).
pipeline_targets=" FuzzHostPipeline FuzzReceivePipeline FuzzVideoJitterBuffer FuzzRoomState FuzzCallSwitchboard "

# fuzz_options TARGET: the length options for TARGET. Parsers get 4096 bytes or their largest
# seed if that is longer (libFuzzer cuts every input, seeds too, to -max_len).
fuzz_options() {
  if [[ "$pipeline_targets" == *" $1 "* ]]; then
    echo "-max_len=65536 -len_control=0"
  else
    local largest
    largest=$(find "Seeds/$1" -type f -printf '%s\n' 2>/dev/null | sort -n | tail -n 1)
    echo "-max_len=$(( ${largest:-0} > 4096 ? largest : 4096 ))"
  fi
}

# The build both scripts use: fuzzer and address sanitizer, optimized (see Fuzz/run).
# --disable-build-manifest-caching: a file added to a target of the parent package (a path
# dependency) was otherwise left out of the cached build plan ("cannot find … in scope").
fuzz_build_flags=(-c debug --manifest-cache none --disable-build-manifest-caching --scratch-path .build-fuzz -Xswiftc -sanitize=fuzzer,address -Xswiftc -parse-as-library -Xswiftc -O)

# Swift's crash backtracer, started when a target traps, outlives a target that libFuzzer's own
# handler has already ended, and keeps the output pipe open: `… | tail -n 3` in run then waits
# for ever (seen here: a trapping input held the pipe for ten minutes, under `timeout 60` too).
# libFuzzer reports the crash, its stack and the input without it.
export SWIFT_BACKTRACE=enable=no
