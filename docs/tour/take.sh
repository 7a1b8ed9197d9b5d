#!/bin/bash
# Takes docs/TOUR.md's pictures the way a new user meets the app: a real window on a virtual X
# display (Xvfb, no window manager), fresh settings, keys sent with xdotool, the screen grabbed with
# ImageMagick's `import`; the report page is rendered from the exported PDF with Ghostscript.
# Usage: docs/tour/take.sh [path/to/tilescope]   (needs xvfb, xdotool, imagemagick, ghostscript)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$here/../..
app=${1:-$root/build/ci/bin/tilescope}
export HOME=$(mktemp -d) XDG_CONFIG_HOME="" XDG_RUNTIME_DIR=$(mktemp -d)
export DISPLAY=:57
Xvfb $DISPLAY -screen 0 1440x900x24 >/dev/null 2>&1 &
xvfb=$!
trap 'kill $xvfb 2>/dev/null || true' EXIT
sleep 1

shot() {  # shot NAME: grabs the screen once the window has drawn
  sleep "${2:-2}"
  import -window root "$here/$1.png"
}
start() {  # start ARGS...: the app in the background, window focused
  "$app" "$@" >/dev/null 2>&1 &
  pid=$!
  sleep 3
  xdotool search --sync --onlyvisible --pid $pid 2>/dev/null | head -1 | xargs -r xdotool windowfocus
}
stop() { kill $pid 2>/dev/null || true; wait $pid 2>/dev/null || true; }

# 1. Explore a shape: the legacy AWQ GEMM launch at a 32k-token prefill.
start --kernel awq_gemm --variant legacy_grid_y --shape M=32768,N=5376,K=4096,group_size=128
shot 1-explore
# ... and the fix: Ctrl+F moves to the nearest shape that launches.
xdotool key ctrl+f
shot 1-explore-fixed 1
stop

# 2. From an error: the log pasted into View > Diagnose (Ctrl+Shift+D), then the Boundaries page.
start --kernel awq_gemm --variant legacy_grid_y --shape M=32768,N=5376,K=4096,group_size=128 --page boundaries
xdotool key ctrl+shift+d
sleep 1
xdotool mousemove 155 617 click 1  # into the dock's log box (the window sits at 0,0 without a window manager)
sleep 0.5
# Line by line with Return between: `xdotool type --file` drops the newlines, and the dock then
# reads the whole log as one line.
while IFS= read -r line || [ -n "$line" ]; do
  [ -n "$line" ] && xdotool type --delay 2 -- "$line"
  xdotool key Return
done <"$root/tests/data/logs/awq_legacy_grid.log"
shot 2-diagnose 3
stop

# 3. Open a trace: File > Open Example > the AlexNet sample, on the Timeline (Ctrl+7).
start "$root/resources/samples/hta_alexnet_a100.json.gz"
xdotool key ctrl+7
shot 3-trace
stop

# 4. Check a model: File > Open Model Config (Alt+F, M), a file name typed into the dialog.
start
xdotool key alt+f
sleep 0.5
xdotool key m
sleep 2
xdotool type --delay 5 "$root/resources/models/TheBloke__Mixtral-8x7B-Instruct-v0.1-AWQ__config.json"
xdotool key Return
shot 4-model 4
stop

# 5. Export a report (File > Export Report, Ctrl+R; here the same from the command line) and its first page.
"$app" "$root/resources/samples/hta_alexnet_a100.json.gz" --kernel attention --device h100-sxm --compare t4 \
  --export-report "$HOME/report.pdf" >/dev/null 2>&1
gs -q -dNOPAUSE -dBATCH -sDEVICE=png16m -r60 -dFirstPage=1 -dLastPage=1 -sOutputFile="$here/5-report-page1.png" "$HOME/report.pdf"
echo "tour pictures written to $here"
