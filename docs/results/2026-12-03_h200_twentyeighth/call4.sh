#!/bin/bash
# call 4 (twenty-eighth session, one H200; run inline through the device tool, ~150 s of device
# time left): every GPU test on the final code (HEAD 833d4e9: the sector refit and op._plan's
# `sectors` in the plan key), no fuzz.
source tools/device_env.sh cache_gpu || exit $?; timeout 115 python3 -m pytest -m gpu -q tests/gpu -p no:cacheprovider > $R/gpu.txt 2>&1; echo rc=$?; tail -6 $R/gpu.txt; grep -E "^FAILED" $R/gpu.txt | head
