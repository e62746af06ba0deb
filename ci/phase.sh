#!/usr/bin/env bash
# ci/phase.sh NAME COMMAND...: run one make phase with a banner and its time.
set -eu
. "$(dirname "$0")/lib.sh"
phase "$@"
