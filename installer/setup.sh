#!/usr/bin/env bash
# Installs what Tilescope needs to build and test on Debian 12, idempotently, and says what it did.
# The CUDA 13 toolkit (nvcc, cuda_occupancy.h, CUPTI) is required at /usr/local/cuda (or $CUDA_HOME);
# a GPU is not. Usage: installer/setup.sh [--no-gui]
set -euo pipefail

gui=1
for arg in "$@"; do
  case "$arg" in
    --no-gui) gui=0 ;;
    -h|--help) sed -n '2,4p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "setup.sh: unknown option '$arg' (accepted: --no-gui)" >&2; exit 2 ;;
  esac
done

packages=(cmake ninja-build g++ git pkg-config nlohmann-json3-dev libcli11-dev libgtest-dev libbenchmark-dev
          libsimdjson-dev zlib1g-dev patchelf libre2-dev)
# clang with libFuzzer and the sanitizer runtimes: the asan preset and its fuzzers (tests/fuzz/run.sh). dpkg-dev, appstream and
# desktop-file-utils: the package test (it validates the metainfo and the .desktop entry).
# clang-format-14: the layout check (tests/format). ccache: the ci and the sanitizer builds compile
# the same device code; with ccache they compile it once (kernels/CMakeLists.txt).
packages+=(clang clang-14 libclang-rt-14-dev dpkg-dev appstream desktop-file-utils clang-format-14 ccache)
# The Python module (python/, CMake option TILESCOPE_PYTHON) for Debian's python3, and its tests (pytest).
packages+=(python3-dev python3-pybind11 python3-pytest)
if [ "$gui" = 1 ]; then
  packages+=(qt6-base-dev qt6-base-dev-tools libqt6opengl6-dev libqcustomplot-dev libgl-dev xvfb xauth)
fi

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done

if [ "${#missing[@]}" -gt 0 ]; then
  echo "setup.sh: installing ${#missing[@]} missing package(s): ${missing[*]}"
  sudo=""
  if [ "$(id -u)" != 0 ]; then
    command -v sudo >/dev/null || { echo "setup.sh: not root and no sudo; install as root: apt-get install ${missing[*]}" >&2; exit 1; }
    sudo="sudo"
  fi
  export DEBIAN_FRONTEND=noninteractive
  $sudo apt-get update -q >/dev/null
  $sudo apt-get install -y -q --no-install-recommends "${missing[@]}" >/dev/null
  echo "setup.sh: installed ${missing[*]}"
else
  echo "setup.sh: all ${#packages[@]} Debian packages already installed"
fi

cuda="${CUDA_HOME:-/usr/local/cuda}"
for needed in bin/nvcc include/cuda_occupancy.h include/cupti.h; do
  if [ ! -e "$cuda/$needed" ]; then
    echo "setup.sh: the CUDA 13 toolkit is missing ($cuda/$needed not found)." >&2
    echo "  Install it from NVIDIA's CUDA repository for Debian 12 (package cuda-toolkit-13-0)," >&2
    echo "  or set CUDA_HOME to where it is installed. A GPU is not needed to build." >&2
    exit 1
  fi
done
echo "setup.sh: CUDA toolkit found at $cuda ($("$cuda/bin/nvcc" --version | grep -o 'release [0-9.]*'))"
