#!/bin/bash
# Submits the sweep array and a merge that runs when every task succeeded.
set -euo pipefail
cd "$(dirname "$0")/../.."
mkdir -p results
jobid=$(sbatch --parsable deploy/slurm/sweep.sbatch)
sbatch --dependency=afterok:"${jobid%%;*}" deploy/slurm/merge.sbatch
