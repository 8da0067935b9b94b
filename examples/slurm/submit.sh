#!/bin/bash
# Submits the shards as one job array, then a merge that runs once they have all ended.
# Run it again after failures: every shard skips what it already made.
set -euo pipefail
here=$(dirname "$0")
OUT=${OUT:-/shared/out}
array=$(sbatch --parsable "$here/workbench-array.sbatch")
sbatch --dependency=afterany:"$array" --job-name=workbench-merge --wrap "workbench manifest merge '$OUT'"
