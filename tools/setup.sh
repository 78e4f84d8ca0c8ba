#!/usr/bin/env bash
# Installs every Debian package Lapis needs. Idempotent: skips what is there,
# runs `apt-get update` only when something is missing.
set -euo pipefail

packages=(
  bazel-bootstrap g++ gfortran python3
  libucx-dev ucx-utils
  libboost-dev libboost-context-dev
  libfmt-dev doctest-dev
  libpmix-dev openmpi-bin libopenmpi-dev
  mpich libmpich-dev gnuplot-nox
  clang-14 libclang-rt-14-dev
  cmake meson ninja-build pkg-config gdb
)

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "setup: all ${#packages[@]} packages present"
  exit 0
fi

sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
echo "setup: installing ${missing[*]}"
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
