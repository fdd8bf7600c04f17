// A WebP decoded straight to a downscaled RGBA image (libwebp's rescaler works row by row while the image decodes),
// for the media Worker's previews of WebPs too large to decode whole. No JS glue: the host copies the file into
// memory it asks for with webp_alloc, calls webp_decode, reads the result and drops the whole instance.
#include <stdint.h>
#include <stdlib.h>
#include "src/webp/decode.h"

#define EXPORT __attribute__((visibility("default"), used))

// What webp_info and webp_decode answer: [0] width, [1] height, [2] has alpha, [3] animated, [4] format
// (0 mixed or unknown, 1 lossy, 2 lossless), [5] output pointer, [6] output width, [7] output height.
static int32_t result[8];
static WebPDecoderConfig config;

EXPORT void* webp_alloc(size_t size) { return malloc(size); }
EXPORT void webp_free(void* pointer) { free(pointer); }
EXPORT int32_t* webp_result(void) { return result; }

// Reads the headers: VP8_STATUS_OK (0) and the image's size, alpha, animation and format in result, or the status.
EXPORT int webp_info(const uint8_t* data, size_t size) {
  WebPBitstreamFeatures features;
  const VP8StatusCode status = WebPGetFeatures(data, size, &features);
  if (status != VP8_STATUS_OK) return status;
  result[0] = features.width;
  result[1] = features.height;
  result[2] = features.has_alpha;
  result[3] = features.has_animation;
  result[4] = features.format;
  return VP8_STATUS_OK;
}

// Decodes the still image in data to RGBA whose longer side is at most `cover` (never enlarged): the status, and the
// output's pointer, width and height in result[5..7] (its rows are width * 4 bytes apart).
EXPORT int webp_decode(const uint8_t* data, size_t size, int cover) {
  VP8StatusCode status;
  int width, height, longer;
  if (!WebPInitDecoderConfig(&config)) return VP8_STATUS_INVALID_PARAM;
  status = WebPGetFeatures(data, size, &config.input);
  if (status != VP8_STATUS_OK) return status;
  if (config.input.has_animation) return VP8_STATUS_UNSUPPORTED_FEATURE;
  width = config.input.width;
  height = config.input.height;
  longer = width > height ? width : height;
  if (cover < 1) cover = 1;
  if (longer > cover) {
    // Rounded to the nearest pixel, at least one: the shorter side in proportion to the longer one's reduction.
    const int64_t w = ((int64_t)width * cover + longer / 2) / longer;
    const int64_t h = ((int64_t)height * cover + longer / 2) / longer;
    config.options.use_scaling = 1;
    config.options.scaled_width = w > 0 ? (int)w : 1;
    config.options.scaled_height = h > 0 ? (int)h : 1;
  }
  config.output.colorspace = MODE_RGBA;
  status = WebPDecode(data, size, &config);
  if (status != VP8_STATUS_OK) {
    WebPFreeDecBuffer(&config.output);
    return status;
  }
  result[5] = (int32_t)(intptr_t)config.output.u.RGBA.rgba;
  result[6] = config.output.width;
  result[7] = config.output.height;
  return VP8_STATUS_OK;
}
