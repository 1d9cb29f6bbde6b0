# Shared by scripts/demo and scripts/test (sourced, not run).

# The Debian 12 packages each script needs.
MEMFMT_DEMO_PACKAGES=(g++ cmake ninja-build pkg-config libboost-dev libhwy-dev)
# (libdlpack-dev: the DLPack bridge; pybind11-dev, python3-dev and python3-numpy: its NumPy
# checks, a module for Debian's /usr/bin/python3, which python3-numpy belongs to)
MEMFMT_TEST_PACKAGES=(g++ clang libclang-rt-14-dev libomp-dev llvm-14 cmake ninja-build pkg-config
                      libboost-dev libhwy-dev catch2 libdnnl-dev libbenchmark-dev
                      libdlpack-dev pybind11-dev python3-dev python3-numpy)

memfmt_log() {
  printf '\n==> %s\n' "$*"
}

# memfmt_ensure_packages PKG...: installs the packages that are not installed.
# Runs apt-get only when something is missing, so a second run is a no-op.
memfmt_ensure_packages() {
  local missing=() pkg status
  for pkg in "$@"; do
    status=$(dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null || true)
    if [[ "$status" != "install ok installed" ]]; then
      missing+=("$pkg")
    fi
  done
  if ((${#missing[@]} == 0)); then
    echo "Debian packages: all ${#@} present"
    return 0
  fi

  local sudo=()
  if [[ $(id -u) -ne 0 ]]; then
    if ! command -v sudo >/dev/null 2>&1; then
      echo "error: missing Debian packages (${missing[*]}), and not root to install them" >&2
      return 1
    fi
    sudo=(sudo)
  fi
  memfmt_log "Installing missing Debian packages: ${missing[*]}"
  "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get -q update
  "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get -q install -y "${missing[@]}" </dev/null
}

# What the test scripts take from PyPI: Conan (the recipe's real `conan create`) and
# oneDNN 3.x (the second oracle). They go into one virtual environment per checkout,
# so the system's Python is left alone.
MEMFMT_TEST_PIP_PACKAGES=(conan onednn onednn-devel)
MEMFMT_VENV=${MEMFMT_VENV:-$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)/build/venv}

# memfmt_ensure_pip_packages PKG...: creates $MEMFMT_VENV if needed and installs the
# packages it lacks; a second run is a no-op. Prints nothing else on success.
memfmt_ensure_pip_packages() {
  if [[ ! -x "$MEMFMT_VENV/bin/python" ]]; then
    memfmt_log "Creating the Python environment $MEMFMT_VENV"
    python3 -m venv "$MEMFMT_VENV"
  fi
  local missing=() pkg
  for pkg in "$@"; do
    if ! "$MEMFMT_VENV/bin/python" -m pip show -q "$pkg" >/dev/null 2>&1; then
      missing+=("$pkg")
    fi
  done
  if ((${#missing[@]} == 0)); then
    echo "PyPI packages: all ${#@} present in $MEMFMT_VENV"
    return 0
  fi
  memfmt_log "Installing PyPI packages into $MEMFMT_VENV: ${missing[*]}"
  "$MEMFMT_VENV/bin/python" -m pip install -q --disable-pip-version-check "${missing[@]}"
}
