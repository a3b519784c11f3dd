# Sourced by the setup scripts: a long step prints a line every 5 s (what
# it is doing and for how long), so that no step is silent for long.
#   progress_start LABEL [COMMAND ARGS...]   COMMAND prints the state, a line
#   ...the step...
#   progress_stop                            prints "LABEL: N s"
progress_start() {
  _progress_label=$1
  _progress_t0=$(date +%s)
  shift
  (
    while sleep 5 && kill -0 $$ 2>/dev/null; do   # ends with its script
      state=""
      [ $# -eq 0 ] || state=$("$@" 2>/dev/null || true)
      echo "$_progress_label: ${state:+$state, }$(( $(date +%s) - _progress_t0 )) s"
    done
  ) &
  _progress_pid=$!
}
progress_stop() {
  kill "$_progress_pid" 2>/dev/null || true
  wait "$_progress_pid" 2>/dev/null || true
  echo "$_progress_label: $(( $(date +%s) - _progress_t0 )) s"
}
