import { describe, expect, it } from "vitest";
import { LeftToBrowser, svgForResvg } from "../../workers/services/imaging/svg-gate";
import { PreviewUnavailable } from "../../workers/services/imaging/preview-unavailable";
import { ParseLimitError } from "../../workers/services/media/extract/parse-limit";
import { svgInfo } from "../../workers/services/media/svg-probe";
import { svgPrefixedFilterBomb, svgStyleFilterBomb } from "../hostile/corpus.mjs";

const enc = (text: string) => new TextEncoder().encode(text);
const SVG = `xmlns="http://www.w3.org/2000/svg"`;
const refusal = (text: string | Uint8Array) => {
  try {
    svgForResvg(typeof text === "string" ? enc(text) : text);
    return null;
  } catch (error) {
    return error;
  }
};

/** The SVG rasteriser's gate decides on the parsed document (saxes + css-tree), never on the text. */
describe("svg-gate: what resvg may draw", () => {
  it("an element under any prefix bound to the SVG namespace is that element (the 333-byte filter bomb)", () => {
    expect(refusal(svgPrefixedFilterBomb())).toBeInstanceOf(LeftToBrowser);
    for (const local of ["filter", "text", "image", "foreignObject", "use", "feGaussianBlur", "marker"]) {
      const error = refusal(`<svg ${SVG} xmlns:s1="http://www.w3.org/2000/svg"><s1:${local}/></svg>`);
      expect(error, local).toBeInstanceOf(LeftToBrowser);
      expect((error as LeftToBrowser).reason).toMatch(/делает браузер/);
    }
  });

  it("a property spelled with character references or CSS escapes is that property", () => {
    expect(refusal(svgStyleFilterBomb())).toBeInstanceOf(LeftToBrowser);
    expect(refusal(`<svg ${SVG}><style>rect{fil\\74 er:blur(9px)}</style><rect/></svg>`)).toBeInstanceOf(LeftToBrowser);
    expect(refusal(`<svg ${SVG}><rect style="fil&#x74;er: blur(9px)"/></svg>`)).toBeInstanceOf(LeftToBrowser);
    expect(refusal(`<svg ${SVG}><style><![CDATA[rect{filter:blur(9px)}]]></style><rect/></svg>`)).toBeInstanceOf(LeftToBrowser);
  });

  it("shape and effect budgets count elements by namespace and declarations after decoding", () => {
    const rects = (n: number, attrs = "") => Array.from({ length: n }, () => `<s1:rect width="1" height="1"${attrs}/>`).join("");
    const doc = (body: string) => `<svg ${SVG} xmlns:s1="http://www.w3.org/2000/svg">${body}</svg>`;
    expect((refusal(doc(rects(1_001))) as LeftToBrowser).reason).toMatch(/больше 1000 фигур/);
    expect((refusal(doc(rects(9, ` style="opa&#99;ity:.5"`))) as LeftToBrowser).reason).toMatch(/слоёв прозрачности/);
    expect((refusal(doc(`<style>rect{opa\\63 ity:.5}</style>${rects(9)}`)) as LeftToBrowser).reason).toMatch(/слоёв прозрачности/);
    expect(refusal(doc(rects(990) + rects(4, ` opacity="0.5"`)))).toBeNull();
    // Style sheets are elements of the tree (and CSS parses): 400,000 empty ones stop at the element budget.
    expect((refusal(doc("<style/>".repeat(400_000))) as LeftToBrowser).reason).toMatch(/больше 10000 элементов/);
  });

  it("resvg is handed only what the gate decided on: SVG elements, checked attributes and CSS, no DTD or prefixes", () => {
    const out = svgForResvg(
      enc(
        `<?xml version="1.0"?><!DOCTYPE svg PUBLIC "-//W3C//DTD SVG 1.1//EN" "http://www.w3.org/Graphics/SVG/1.1/DTD/svg11.dtd">` +
          `<svg ${SVG} xmlns:xlink="http://www.w3.org/1999/xlink" xmlns:inkscape="http://www.inkscape.org/namespaces/inkscape" viewBox="0 0 10 10">` +
          `<metadata><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#"/></metadata><title>t</title><script>x()</script>` +
          `<style>@import url(http://example.invalid/x.css); .a > rect, #b{fill:red; mix-blend-mode: multiply} [x=y]{fill:blue}</style>` +
          `<linearGradient id="g" xlink:href="#h"><stop offset="0" style="stop-color:#fff;stop-opacity:1"/></linearGradient>` +
          `<g class="a" inkscape:label="слой" onclick="x()"><rect width="5" height="5" style="fill:url(#g);stroke:url(http://example.invalid/p)" fill="red"/></g></svg>`,
      ),
    );
    expect(out).toBe(
      `<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" viewBox="0 0 10 10">` +
        `<style>.a &gt; rect,#b{fill:red}</style>` +
        `<linearGradient id="g" xlink:href="#h"><stop offset="0" style="stop-color:#fff;stop-opacity:1"/></linearGradient>` +
        `<g class="a"><rect width="5" height="5" style="fill:url(#g)" fill="red"/></g></svg>`,
    );
  });

  it("a broken document is a broken file; a DTD of its own goes to the browser; the parser's budgets hold", () => {
    expect(refusal(`<svg ${SVG}><rect></svg>`)).toBeInstanceOf(PreviewUnavailable);
    expect(refusal(`<svg ${SVG}><rect></svg>`)).not.toBeInstanceOf(LeftToBrowser);
    expect(refusal(`<svg><rect/></svg>`)).toBeInstanceOf(PreviewUnavailable);
    const entities = `<!DOCTYPE svg [<!ENTITY ns "http://www.w3.org/2000/svg">]><svg xmlns="&ns;"><rect/></svg>`;
    expect(refusal(entities)).toBeInstanceOf(LeftToBrowser);
    expect(svgInfo(enc(entities))).toEqual({ externalRefs: 0 });
    const attrs = Array.from({ length: 1_001 }, (_, i) => `a${i}="1"`).join(" ");
    expect(refusal(`<svg ${SVG} ${attrs}/>`)).toBeInstanceOf(ParseLimitError);
    expect(() => svgInfo(enc(`<svg ${SVG}>${"<g>".repeat(300)}${"</g>".repeat(300)}</svg>`))).toThrow(/SVG вложен глубже/);
  });

  it("svgInfo reads size and external references from the parsed document", () => {
    expect(svgInfo(enc(`<svg ${SVG} viewBox="0,0 200 100"><image href=" https://e/x.png"/><rect style="fill:url('//e/f.svg#p')"/></svg>`))).toEqual({
      width: 200,
      height: 100,
      externalRefs: 2,
    });
    expect(svgInfo(enc(`<html/>`))).toBeNull();
    expect(svgInfo(enc(`not xml`))).toBeNull();
  });
});
