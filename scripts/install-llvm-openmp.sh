#!/usr/bin/env bash
# Gives clang-N its OpenMP headers, runtime and Archer when libomp-N-dev cannot be installed beside the
# libomp-dev of Debian's default clang: the two packages conflict only on the shared libomp.so.5 names,
# while everything clang-N itself looks for lives under /usr/lib/llvm-N/. So the package is unpacked,
# not installed, and only its /usr/lib/llvm-N/ part is copied in (nothing dpkg owns is overwritten).
# Usage: scripts/install-llvm-openmp.sh 19   (as root; needs clang-N already installed)
set -euo pipefail
version=${1:?usage: install-llvm-openmp.sh N}
[ -x "/usr/bin/clang-$version" ] || { echo "install-llvm-openmp: clang-$version is not installed" >&2; exit 2; }
if [ -f "/usr/lib/llvm-$version/lib/libomp.so" ] && [ -f "/usr/lib/llvm-$version/lib/clang/$version/include/omp.h" ]; then
  exit 0
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
apt-get download "libomp-$version-dev" "libomp5-$version" >/dev/null 2>&1
for deb in ./*.deb; do dpkg -x "$deb" unpacked; done
cp -rn "unpacked/usr/lib/llvm-$version/." "/usr/lib/llvm-$version/"
echo "install-llvm-openmp: clang-$version has OpenMP from libomp-$version-dev under /usr/lib/llvm-$version"
