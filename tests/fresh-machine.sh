#!/usr/bin/env bash
# The README's quick start on a fresh machine: a new Debian 12 root
# (debootstrap --variant=minbase bookworm: no CUDA toolkit, nothing but
# Debian's base), a copy of this tree in it, and each command given run
# there as root, unchanged, in turn; prints how long each took and stops
# at the first that fails.  Needs root (debootstrap, mount, chroot).
#   tests/fresh-machine.sh ROOT 'pipelines/quickstart.sh' 'tests/run-tests.sh'
# ROOT is made anew (an existing one is unmounted and removed first).  A
# command written "@N command" fails if it is ever silent for more than N
# seconds (the longest silence of each command is printed in any case).
# FRESH_BASE=DIR keeps the debootstrap there and copies it for each root
# (made on first use); FRESH_COPY="FILE..." copies those files into
# /kconv instead of the tree.
set -uo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
root=${1:?usage: tests/fresh-machine.sh ROOT COMMAND...}
shift
[ "$(id -u)" -eq 0 ] || { echo "fresh-machine.sh: needs root" >&2; exit 1; }
mkdir -p "$root"
root=$(cd "$root" && pwd)
[ "$root" != / ] || exit 1

unmount_all() {   # everything mounted under the root, deepest first
  findmnt -rn -o TARGET | grep "^$root/" | sort -r | while read -r m; do
    umount -l "$m" || true
  done
}
remove_root() {
  unmount_all
  if findmnt -rn -o TARGET | grep -q "^$root/"; then
    echo "fresh-machine.sh: $root still has mounts; not removing it" >&2; exit 1
  fi
  rm -rf --one-file-system "$root"
}
remove_root
trap unmount_all EXIT

if ! command -v debootstrap >/dev/null; then
  apt-get update -qq && apt-get install -y -qq --no-install-recommends \
    debootstrap >/dev/null || { echo "fresh-machine.sh: cannot install debootstrap" >&2; exit 1; }
fi
t0=$(date +%s)
base=${FRESH_BASE:-$root}
make_base() {
  [ ! -f "$base/.complete" ] || return 0
  rm -rf --one-file-system "$base"
  debootstrap --variant=minbase bookworm "$base" http://deb.debian.org/debian \
    >"$base.debootstrap.log" 2>&1 || {
    echo "fresh-machine.sh: debootstrap failed:" >&2; tail -n 30 "$base.debootstrap.log" >&2
    rm -rf --one-file-system "$base"; return 1; }
  touch "$base/.complete"
}
if [ "$base" = "$root" ]; then
  make_base || exit 1
else
  # roots made at once share the one debootstrap: the first makes it
  mkdir -p "$(dirname "$base")"
  exec 9>"$base.lock"
  flock 9
  make_base || exit 1
  flock -u 9
  cp -a "$base" "$root"
  rm -f "$root/.complete"
fi
echo "fresh-machine.sh: Debian 12 root made in $(( $(date +%s) - t0 )) s ($root)"
# what a Debian 12 installation's apt reads (updates and security too), and
# this machine's name servers
if [ -f /etc/apt/sources.list.d/debian.sources ]; then
  cp /etc/apt/sources.list.d/debian.sources "$root/etc/apt/sources.list.d/"
  rm -f "$root/etc/apt/sources.list"
fi
cp -L /etc/resolv.conf "$root/etc/resolv.conf" 2>/dev/null || true
mount -t proc proc "$root/proc"
mount --bind /dev "$root/dev"
mount --bind /dev/pts "$root/dev/pts"

# the tree as git sees it (tracked and new files), without build folders
mkdir -p "$root/kconv"
if [ -n "${FRESH_COPY:-}" ]; then
  # shellcheck disable=SC2086
  cp $FRESH_COPY "$root/kconv/"
elif git -C "$src" rev-parse >/dev/null 2>&1; then
  git -C "$src" ls-files -z --cached --others --exclude-standard \
    | (cd "$src" && tar --null -T - -cf -) | tar -xf - -C "$root/kconv"
else
  (cd "$src" && tar --exclude='./build*' -cf - .) | tar -xf - -C "$root/kconv"
fi

# watch_silence FILE: passes its input through; writes the longest time
# between two lines (and before the first and after the last), in ms
watch_silence() {
  local last=${EPOCHREALTIME/./} longest=0 now line
  while IFS= read -r line; do
    now=${EPOCHREALTIME/./}
    (( (now - last) / 1000 > longest )) && longest=$(( (now - last) / 1000 ))
    last=$now
    printf '%s\n' "$line"
  done
  now=${EPOCHREALTIME/./}
  (( (now - last) / 1000 > longest )) && longest=$(( (now - last) / 1000 ))
  echo "$longest" >"$1"
}
silence_file=$(mktemp)
for cmd in "$@"; do
  limit=""
  if [[ $cmd =~ ^@([0-9]+)\ (.*)$ ]]; then
    limit=${BASH_REMATCH[1]} cmd=${BASH_REMATCH[2]}
  fi
  echo "fresh-machine.sh: running $cmd"
  t0=$(date +%s)
  chroot "$root" /usr/bin/env -i HOME=/root LANG=C.UTF-8 TERM=dumb \
    PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
    ${FRESH_ENV:-} /bin/bash -c "cd /kconv && $cmd" 2>&1 | watch_silence "$silence_file"
  rc=${PIPESTATUS[0]}
  took=$(( $(date +%s) - t0 ))
  silent_ms=$(cat "$silence_file")
  silent="longest silence $(( silent_ms / 1000 )).$(( silent_ms % 1000 / 100 )) s"
  if [ $rc -ne 0 ]; then
    echo "fresh-machine.sh: $cmd FAILED (exit $rc) after $took s ($silent)"; exit 1
  fi
  if [ -n "$limit" ] && [ "$silent_ms" -gt $(( limit * 1000 )) ]; then
    echo "fresh-machine.sh: $cmd FAILED: silent for more than $limit s ($silent), in $took s"; exit 1
  fi
  echo "fresh-machine.sh: $cmd passed in $took s ($silent)"
done
