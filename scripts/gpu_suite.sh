#!/usr/bin/env bash
# The test suite and the GPU figures on a CUDA machine, in one run (issue 38 §4): the machine's own PyTorch (CUDA
# build) with this project's other packages carried as wheels in .whl/ (see docs/testing.md, "On a GPU").
#   bash scripts/gpu_suite.sh OUT_DIR
set -u
out=${1:-/tmp/gpu-suite}; mkdir -p "$out"
export PYTHONUNBUFFERED=1 HF_HUB_OFFLINE=1
if [ -d .whl ]; then
  python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl \
    && export PYTHONPATH=/tmp/site
fi
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader | tee "$out/machine.txt"
python3 -c "import torch, streamlit; print('torch', torch.__version__, 'cuda', torch.cuda.is_available(), 'streamlit', streamlit.__version__)" | tee -a "$out/machine.txt"
workers=$(( $(nproc) - 1 ))
# 1. the suite, browser tests skipping (no Chromium there, CI unset), the training-job tests apart (below)
start=$(date +%s)
timeout 330 python3 -m pytest -q -n "$workers" -p no:cacheprovider --ignore=tests/test_jobs.py \
  --ignore=tests/test_screen_trained.py 2>&1 | tail -40 | tee "$out/suite.txt"
echo "suite: $(( $(date +%s) - start )) s with -n $workers" | tee -a "$out/suite.txt"
# 2. the GPU-only tests, and the training jobs alone (they run at SCHED_IDLE: 15 busy workers starve them)
timeout 90 python3 -m pytest -q -p no:cacheprovider -m gpu 2>&1 | tail -5 | tee "$out/gpu-marked.txt"
timeout 150 python3 -m pytest -q -p no:cacheprovider tests/test_jobs.py tests/test_screen_trained.py 2>&1 | tail -8 \
  | tee "$out/jobs-alone.txt"
# 3. the figures
timeout 120 python3 scripts/gpu_figures.py | tee "$out/figures.md"
