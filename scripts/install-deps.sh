#!/usr/bin/env bash
# Installs the Debian 12 packages attnviz needs, skipping apt entirely when all are present.
set -euo pipefail
PACKAGES=(
  build-essential cmake pkg-config
  libeigen3-dev libimgui-dev libglfw3-dev python3-glad python3-jinja2 libstb-dev
  libgtest-dev libbenchmark-dev
  fonts-dejavu-core fonts-nanum fonts-symbola fontconfig
  xvfb xauth xdotool x11-xserver-utils xclip libgl1-mesa-dri libglx-mesa0 libgl-dev mesa-utils
  libxml2-utils poppler-utils python3
  nlohmann-json3-dev libpcre2-dev libutf8proc-dev libsentencepiece-dev
  desktop-file-utils appstream help2man librsvg2-bin man-db dpkg-dev
  clang libclang-rt-14-dev libomp-14-dev
)
# `install-deps.sh --fixtures`: what the fixture scripts need (never CI: their outputs are committed).
if [ "${1:-}" = "--fixtures" ]; then
  PACKAGES+=(python3-torch python3-numpy python3-sentencepiece sentencepiece)  # node and npm: nodejs (npm comes with it or as its own package)
fi
# `install-deps.sh --bench`: also what `make bench` compares against (PyTorch and numpy on OpenBLAS).
if [ "${1:-}" = "--bench" ]; then
  PACKAGES+=(python3-torch python3-numpy libopenblas0-pthread)
fi
missing=()
for p in "${PACKAGES[@]}"; do
  dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi
echo "install-deps: installing ${missing[*]}"
SUDO=""
if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null 2>&1; then SUDO=sudo; else
    echo "install-deps: missing packages (${missing[*]}) and not root; run as root or install them" >&2
    exit 1
  fi
fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
