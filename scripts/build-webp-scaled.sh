#!/bin/sh
# Builds workers/services/imaging/webp-scaled/webp_scaled.wasm: libwebp's decoder with its rescaler, no JS glue
# (decision 029, «WebP over 12 MP»). The .wasm is committed; CI does not build it. Needs, on Debian bookworm:
#   apt-get install -y emscripten                      (3.1.6)
#   a deb-src entry, e.g. /etc/apt/sources.list.d/src.sources:
#     Types: deb-src
#     URIs: http://deb.debian.org/debian
#     Suites: bookworm
#     Components: main
#     Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
#   apt-get update && cd /tmp && apt-get source libwebp  (1.2.4-0.2+deb12u1, with the CVE-2023-4863 fix)
# Usage: scripts/build-webp-scaled.sh [libwebp source dir, default /tmp/libwebp-1.2.4]
set -eu
here=$(cd "$(dirname "$0")/.." && pwd)
out="$here/workers/services/imaging/webp-scaled"
src=${1:-/tmp/libwebp-1.2.4}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp -r "$src/src" "$work/src"
# The lossless decoder keeps a sliding window of pixels instead of the whole image (see README.md there).
(cd "$work" && patch -p1 --no-backup-if-mismatch < "$out/sliding-window.patch")
cd "$work"
emcc -O3 -DNDEBUG -msimd128 -msse2 -I. \
  src/dec/*.c \
  src/dsp/alpha_processing.c src/dsp/alpha_processing_sse2.c src/dsp/cpu.c src/dsp/dec.c src/dsp/dec_clip_tables.c \
  src/dsp/dec_sse2.c src/dsp/filters.c src/dsp/filters_sse2.c src/dsp/lossless.c src/dsp/lossless_sse2.c \
  src/dsp/rescaler.c src/dsp/rescaler_sse2.c src/dsp/upsampling.c src/dsp/upsampling_sse2.c src/dsp/yuv.c \
  src/dsp/yuv_sse2.c \
  src/utils/bit_reader_utils.c src/utils/color_cache_utils.c src/utils/filters_utils.c src/utils/huffman_utils.c \
  src/utils/quant_levels_dec_utils.c src/utils/random_utils.c src/utils/rescaler_utils.c src/utils/thread_utils.c \
  src/utils/utils.c \
  "$out/webp_scaled.c" \
  --no-entry -s STANDALONE_WASM=1 -s FILESYSTEM=0 -s ALLOW_MEMORY_GROWTH=1 \
  -s INITIAL_MEMORY=2MB -s MAXIMUM_MEMORY=64MB -s TOTAL_STACK=256KB -s MALLOC=dlmalloc \
  -s EXPORTED_FUNCTIONS=_webp_alloc,_webp_free,_webp_result,_webp_info,_webp_decode \
  -o "$out/webp_scaled.wasm"
ls -l "$out/webp_scaled.wasm"
