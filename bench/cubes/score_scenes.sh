#!/usr/bin/env bash
# Scores every encoder of cubes_bandwidth on a set of cube scenes (scripts x
# seeds) and prints one table: per scene the reference's kbps and each
# encoder's kbps and ratio to the reference ("x ref"), then the mean ratio
# per encoder, per script and over the set (docs/benchmarks.md, "Bandwidth:
# the cube scene", "Across scenes: the training set and the report set").
#
#   bench/cubes/score_scenes.sh [--set train|report] [--scripts A,B] [--seeds 2-6|2,3]
#                               [--build DIR] [--dir DIR] [--peer COMMAND] [--peer-name NAME]
#                               [--peer-lead N]
#
#   --set train    seeds 101-103 of every script: the scenes a coder's
#                  parameters may be tuned on
#   --set report   seeds 2-6 of every script (the default): the scenes its
#                  figures are reported on; none is a training scene, and
#                  seed 1 of play, the historical tuning scene, is left out
#   --scripts, --seeds  replace the set's scripts or seeds
#   --build DIR    the Release build holding bench/cubes/cubes_scene and
#                  cubes_bandwidth (default build/release, as ./run.sh
#                  bandwidth builds it)
#   --dir DIR      where the scenes are written (default DIR/bench/cubes/scenes
#                  of the build); a scene already there is used as it is
#   --peer COMMAND another encoder, side by side: COMMAND runs in an empty
#                  scratch folder holding the scene as delta_data.bin and
#                  delta_data_realnew.bin (the names public entries read) and
#                  must print its rate as a line "<number> kbps", packet i
#                  being frame i against frame i - 6
#   --peer-name    the peer's column (default: the command's file name)
#   --peer-lead N  copies of the scene's first frame put ahead of the file
#                  the peer reads (default 1: ryg's gaffer_net takes its
#                  file's first frame as a start frame and codes the frames
#                  after it, so with one copy ahead it codes the same 2,837
#                  packets as cubes_bandwidth; 0 gives it the scene as it is)
#
# Scenes are written, scored and kept one at a time; a scene takes about 3 s
# to generate and 5-20 s to score on a 2-core machine.
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"

set_name=report
scripts=""
seeds=""
build="$root/build/release"
dir=""
peer=""
peer_name=""
peer_lead=1
while (($#)); do
  case "$1" in
    --set) set_name="$2"; shift 2 ;;
    --scripts) scripts="$2"; shift 2 ;;
    --seeds) seeds="$2"; shift 2 ;;
    --build) build="$2"; shift 2 ;;
    --dir) dir="$2"; shift 2 ;;
    --peer) peer="$2"; shift 2 ;;
    --peer-name) peer_name="$2"; shift 2 ;;
    --peer-lead) peer_lead="$2"; shift 2 ;;
    -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "score_scenes.sh: unknown option $1 (--help lists them)" >&2; exit 2 ;;
  esac
done

case "$set_name" in
  train) default_seeds="101-103" ;;
  report) default_seeds="2-6" ;;
  *) echo "score_scenes.sh: --set is train or report" >&2; exit 2 ;;
esac
scripts="${scripts:-play,air,settle,storm}"
seeds="${seeds:-$default_seeds}"
dir="${dir:-$build/bench/cubes/scenes}"
scene_tool="$build/bench/cubes/cubes_scene"
bandwidth_tool="$build/bench/cubes/cubes_bandwidth"
for tool in "$scene_tool" "$bandwidth_tool"; do
  [ -x "$tool" ] || { echo "score_scenes.sh: $tool is missing: ./run.sh bandwidth builds it" >&2; exit 1; }
done
if [ -n "$peer" ]; then
  peer_name="${peer_name:-$(basename "${peer%% *}")}"
fi

# 2-6 or 2,3,5 or both mixed: one seed a line
expand_seeds() {
  local part
  for part in ${1//,/ }; do
    if [[ "$part" =~ ^([0-9]+)-([0-9]+)$ ]]; then
      seq "${BASH_REMATCH[1]}" "${BASH_REMATCH[2]}"
    elif [[ "$part" =~ ^[0-9]+$ ]]; then
      echo "$part"
    else
      echo "score_scenes.sh: bad seed list $1" >&2; exit 2
    fi
  done
}
seed_list=$(expand_seeds "$seeds")

mkdir -p "$dir"
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
results="$scratch/results"   # scene<TAB>encoder<TAB>kbps, one line per encoder and scene
: > "$results"
frame_bytes=$((901 * 32))
started=$SECONDS

for script in ${scripts//,/ }; do
  for seed in $seed_list; do
    scene="$script-$seed"
    file="$dir/$scene.bin"
    if [ ! -s "$file" ]; then
      "$scene_tool" --out "$file.part" --script "$script" --seed "$seed" > "$dir/$scene.txt"
      mv "$file.part" "$file"
    fi
    "$bandwidth_tool" --data "$file" --csv | awk -F, -v scene="$scene" '{ printf "%s\t%s\t%s\n", scene, $1, $2 }' >> "$results"
    if [ -n "$peer" ]; then
      work="$scratch/peer"
      mkdir -p "$work"
      { for ((k = 0; k < peer_lead; ++k)); do head -c "$frame_bytes" "$file"; done; cat "$file"; } > "$work/delta_data.bin"
      ln -f "$work/delta_data.bin" "$work/delta_data_realnew.bin"
      output=$(cd "$work" && bash -c "$peer" 2>&1) || { echo "score_scenes.sh: the peer failed on $scene:" >&2; echo "$output" >&2; exit 1; }
      kbps=$(echo "$output" | awk '$2 == "kbps" && $1 ~ /^[0-9.]+$/ { k = $1 } END { print k }')
      [ -n "$kbps" ] || { echo "score_scenes.sh: the peer printed no \"<number> kbps\" line on $scene:" >&2; echo "$output" >&2; exit 1; }
      printf '%s\t%s\t%s\n' "$scene" "$peer_name" "$kbps" >> "$results"
      rm -rf "$work"
    fi
    echo "scored $scene ($((SECONDS - started)) s so far)" >&2
  done
done

echo "set $set_name: scripts $scripts, seeds $seeds ($(echo $seed_list | wc -w) a script); scenes in $dir"
echo "x ref = the encoder's kbps / the reference's kbps on the same scene (lower is better)"
echo
awk -F'\t' '
  {
    if (!($1 in seen)) { seen[$1] = 1; scenes[++ns] = $1 }
    if (!($2 in known)) { known[$2] = 1; encoders[++ne] = $2 }
    kbps[$1, $2] = $3
  }
  END {
    header = "| scene | reference kbps |"; rule = "|---|---:|"
    for (e = 1; e <= ne; ++e) if (encoders[e] != "reference") {
      header = header " " encoders[e] " kbps | " encoders[e] " x ref |"; rule = rule "---:|---:|"
    }
    print header; print rule
    for (s = 1; s <= ns; ++s) {
      scene = scenes[s]; ref = kbps[scene, "reference"]
      script = scene; sub(/-[0-9]+$/, "", script)
      if (!(script in counted)) { counted[script] = 0; script_order[++nscripts] = script }
      counted[script]++
      line = "| " scene " | " sprintf("%.2f", ref) " |"
      for (e = 1; e <= ne; ++e) if (encoders[e] != "reference") {
        ratio = kbps[scene, encoders[e]] / ref
        sum[encoders[e]] += ratio; script_sum[script, encoders[e]] += ratio
        line = line sprintf(" %.2f | %.3f |", kbps[scene, encoders[e]], ratio)
      }
      print line
    }
    print ""
    header = "| mean x ref | scenes |"; rule = "|---|---:|"
    for (e = 1; e <= ne; ++e) if (encoders[e] != "reference") { header = header " " encoders[e] " |"; rule = rule "---:|" }
    print header; print rule
    for (k = 1; k <= nscripts; ++k) {
      script = script_order[k]; line = "| " script " | " counted[script] " |"
      for (e = 1; e <= ne; ++e) if (encoders[e] != "reference") line = line sprintf(" %.3f |", script_sum[script, encoders[e]] / counted[script])
      print line
    }
    line = "| **all** | " ns " |"
    for (e = 1; e <= ne; ++e) if (encoders[e] != "reference") line = line sprintf(" **%.3f** |", sum[encoders[e]] / ns)
    print line
  }' "$results"
echo
echo "$(awk -F'\t' '!s[$1]++' "$results" | wc -l) scenes in $((SECONDS - started)) s"
