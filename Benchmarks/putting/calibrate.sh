#!/bin/sh
# The stroke-error levels against the published make rates they are fitted to (Plugins/Putting/README.md has the
# sources): the physics model on a flat green at each data set's green speed, model beside data for every level, and
# the curves with the data points drawn as SVG (rendered to PNG when rsvg-convert is installed).
#   FIT=1  also refit every level (least squares on the real model; about a minute) and print the numbers beside the
#          shipped ones (Plugins/Putting/Sources/PuttingCore/Physics/SkillLevels.swift)
#   OUT    folder for calibration.svg and .png (default .build/putting-calibration)
set -eu
cd "$(dirname "$0")/../.."
OUT=${OUT:-.build/putting-calibration}
mkdir -p "$OUT"
swift build -c release --product clubhouse-bench >/dev/null
ARGS="--svg $OUT/calibration.svg"
if [ "${FIT:-0}" = 1 ]; then ARGS="$ARGS --fit"; fi
# shellcheck disable=SC2086
.build/release/clubhouse-bench putting-calibrate $ARGS
if command -v rsvg-convert >/dev/null 2>&1; then
    rsvg-convert -o "$OUT/calibration.png" "$OUT/calibration.svg"
    echo "rendered $OUT/calibration.png"
else
    echo "rsvg-convert is not installed (Debian: librsvg2-bin): $OUT/calibration.svg is not rendered"
fi
