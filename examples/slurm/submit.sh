#!/bin/bash
# Submits the shards as one job array, then a merge that runs once they have all ended.
# Run it again after failures: every shard skips what it already made.
set -euo pipefail
here=$(dirname "$0")
OUT=${OUT:-/shared/out}
array=$(sbatch --parsable "$here/workbench-array.sbatch")
# With IMAGE set (an Apptainer image, see workbench-array.sbatch), the merge runs in it too.
run=${IMAGE:+apptainer exec --bind '$OUT' '$IMAGE' }
sbatch --dependency=afterany:"$array" --job-name=workbench-merge --wrap "${run}workbench manifest merge '$OUT'"
