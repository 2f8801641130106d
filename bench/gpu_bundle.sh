#!/usr/bin/env bash
# Packs MAX 26.7 for a lent GPU machine that cannot reach a package index (the `device` tool's
# machines: Python 3.12, PyTorch, no MAX) into .dev/ (ignored by git), in two parts that each fit
# one call's 64 MiB, plus Nabla's kernel packages built here (the bundle's `mojo` is a stub: MAX
# only checks that it exists; 270 MB saved: rerun this after editing a kernel or the Python that
# declares it, or the device cannot build the package). Then, on the device, two calls back to back (the
# machine stays warm 30 s):
#   1. carry [".dev/a"]:  mkdir -p /opt/nb && cp .dev/a/part.aa /opt/nb/
#   2. carry [".dev/b", ".dev/kernels"]:
#      cat /opt/nb/part.aa .dev/b/part.ab | python3 -c "import sys,lzma,tarfile; tarfile.open(
#        fileobj=lzma.open(sys.stdin.buffer),mode='r|').extractall('/opt')"
#      export PYTHONPATH=/opt/site2:$PWD NABLA_KERNEL_CACHE_DIR=$PWD/.dev/kernels HOME=/tmp/h
#      python3 -m bench.gpu_check $OUT/gpu_check.json
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$PWD
grep -qx "/.dev/" .git/info/exclude 2>/dev/null || echo "/.dev/" >> .git/info/exclude
work=$(mktemp -d)
python3 -m pip download -q --no-deps --only-binary=:all: --python-version 3.12 --implementation cp \
  --platform manylinux_2_34_x86_64 --platform manylinux_2_28_x86_64 --platform manylinux_2_17_x86_64 \
  --platform manylinux2014_x86_64 -d "$work/whl" max==26.7.0 max-core==26.7.0 max-mojo-libs==26.7.0 \
  mojo-compiler==1.2.0 mojo-compiler-mojo-libs==1.2.0 msgspec taskgroup exceptiongroup array-api-compat
python3 -m pip install -q --no-deps --no-index --no-compile --only-binary=:all: --python-version 3.12 \
  --implementation cp --platform manylinux_2_34_x86_64 --platform manylinux_2_17_x86_64 \
  --platform manylinux2014_x86_64 --target "$work/site2" "$work"/whl/*.whl
cd "$work/site2"
rm -rf modular/bin/lld modular/lib/nixl modular/lib/libnvshmem_host.so.3 modular/lib/nvshmem_* \
  max/pipelines max/serve max/benchmark max/entrypoints
printf '#!/bin/sh\nexit 1\n' > modular/bin/mojo && chmod +x modular/bin/mojo
cd "$work"
tar -cf - site2 | xz -T2 -6 > site2.tar.xz
cd "$repo"
rm -rf .dev/a .dev/b .dev/kernels && mkdir -p .dev/a .dev/b
split -b 48M "$work/site2.tar.xz" "$work/part."
mv "$work/part.aa" .dev/a/ && mv "$work/part.ab" .dev/b/
rm -rf "$work"
NABLA_KERNEL_CACHE_DIR="$PWD/.dev/kernels" python3 -c "
from nabla.ops.custom_kernels import kernel_library, PACKAGES
for p in PACKAGES: kernel_library(p)"
du -sh .dev/*
