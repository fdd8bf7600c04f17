import type { Waveform } from "../../../shared/waveform";
import { encodePng } from "./image-codec";
import { WAVEFORM_IMAGE_SIZES, renderWaveform } from "./waveform-image";

/** A waveform's preview of one size, as PNG (flat colours compress to a few KB). */
export async function renderWaveformPng(waveform: Pick<Waveform, "peaks">, size: keyof typeof WAVEFORM_IMAGE_SIZES): Promise<Uint8Array> {
  const box = WAVEFORM_IMAGE_SIZES[size];
  return encodePng(renderWaveform(waveform.peaks, box.width, box.height));
}
