#!/usr/bin/env sh
# Prints the indented lines of the README's code block that follows a
# paragraph beginning with **HEADING** (the lines as a user copies them):
#   tests/readme-block.sh 'The Debian package'
awk -v h="**$1**" 'index($0, h) == 1 { on = 1; next }
     on && /^    / { sub(/^    /, ""); print; seen = 1; next }
     on && seen && !/^$/ { exit }' "$(dirname "$0")/../README.md"
