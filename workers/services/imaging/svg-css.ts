import parse, { type CssNode } from "css-tree/parser";
import { ident } from "css-tree/utils";

/**
 * CSS of an SVG (its `style` attributes and `<style>` sheets) as the gate sees it: parsed by css-tree after the XML
 * parser decoded character references, every name decoded from its CSS escapes, and re-emitted only from parts that
 * were checked — so resvg reads exactly the declarations the gate decided on (`fil\74 er` is `filter` here too).
 */

/** Properties resvg may be handed (presentation properties of shapes, paint servers, clips and masks). */
export const PAINT_PROPERTIES = new Set([
  "fill",
  "fill-opacity",
  "fill-rule",
  "stroke",
  "stroke-width",
  "stroke-opacity",
  "stroke-linecap",
  "stroke-linejoin",
  "stroke-miterlimit",
  "stroke-dasharray",
  "stroke-dashoffset",
  "opacity",
  "clip-path",
  "clip-rule",
  "mask",
  "stop-color",
  "stop-opacity",
  "color",
  "display",
  "visibility",
  "shape-rendering",
  "paint-order",
]);

/** A cleaned list of declarations: what resvg gets, and the names of every declaration the CSS held (kept or not). */
export interface CleanCss {
  css: string;
  /** every property declared, decoded and lower-cased, including those left out */
  declared: Set<string>;
  /** properties of the declarations kept */
  kept: string[];
  /** rules kept (a sheet) */
  rules: number;
}

const IDENT = /^-?[A-Za-z_][\w-]*$/;
const NUMBER = /^[-+]?(?:\d+\.?\d*|\.\d+)(?:e[-+]?\d+)?$/i;
const COLOR_FUNCTIONS = new Set(["rgb", "rgba", "hsl", "hsla"]);
const name = (node: CssNode) => ident.decode(node.name ?? "");
const items = (node: CssNode | null | undefined) => node?.children?.toArray() ?? [];
const text = (node: CssNode) => (typeof node.value === "string" ? node.value : "");

/** A value re-emitted from checked tokens, or null when it holds anything else (strings, unknown functions, URLs out). */
function cleanValue(nodes: CssNode[]): string | null {
  const out: string[] = [];
  for (const node of nodes) {
    const value = text(node);
    switch (node.type) {
      case "WhiteSpace":
        continue;
      case "Identifier":
        if (!IDENT.test(name(node))) return null;
        out.push(name(node));
        break;
      case "Number":
      case "Percentage":
        if (!NUMBER.test(value)) return null;
        out.push(node.type === "Number" ? value : `${value}%`);
        break;
      case "Dimension": {
        const unit = ident.decode(node.unit ?? "");
        if (!NUMBER.test(value) || !/^[A-Za-z]{1,4}$/.test(unit)) return null;
        out.push(`${value}${unit}`);
        break;
      }
      case "Hash":
        if (!/^[\dA-Fa-f]{3,8}$/.test(value)) return null;
        out.push(`#${value}`);
        break;
      case "Url":
        // Only a reference inside the file (a gradient, clip path, mask); nothing is ever fetched.
        if (!/^#[\w.:-]+$/.test(value)) return null;
        out.push(`url(${value})`);
        break;
      case "Function": {
        const fn = name(node).toLowerCase();
        const inner = COLOR_FUNCTIONS.has(fn) ? cleanValue(items(node)) : null;
        if (inner === null) return null;
        out.push(`${fn}(${inner})`);
        break;
      }
      case "Operator":
        if (value !== "," && value !== "/") return null;
        out.push(value);
        break;
      default:
        return null;
    }
  }
  return out.length > 0 ? out.join(" ") : null;
}

/** Declarations (of a `style` attribute or a rule's block) re-emitted, the allowed ones only. */
function cleanDeclarations(nodes: CssNode[], into: CleanCss): string {
  const out: string[] = [];
  for (const node of nodes) {
    if (node.type !== "Declaration") continue;
    const property = ident.decode(node.property ?? "").toLowerCase();
    into.declared.add(property);
    if (!PAINT_PROPERTIES.has(property) || typeof node.value !== "object") continue;
    const value = cleanValue(items(node.value));
    if (value === null) continue;
    out.push(`${property}:${value}${node.important ? " !important" : ""}`);
    into.kept.push(property);
  }
  return out.join(";");
}

/** A selector re-emitted from type, class and id selectors, combinators and `:first-child`; null for anything else. */
function cleanSelector(selector: CssNode): string | null {
  let out = "";
  for (const part of items(selector)) {
    const n = name(part);
    if (part.type === "TypeSelector" && (n === "*" || IDENT.test(n))) out += n;
    else if (part.type === "ClassSelector" && IDENT.test(n)) out += `.${n}`;
    else if (part.type === "IdSelector" && /^[\w-]+$/.test(n)) out += `#${n}`;
    else if (part.type === "Combinator" && [" ", ">", "+", "~"].includes(part.name ?? "")) out += part.name === " " ? " " : ` ${part.name} `;
    else if (part.type === "PseudoClassSelector" && n === "first-child" && !part.children) out += ":first-child";
    else return null;
  }
  return out || null;
}

const empty = (): CleanCss => ({ css: "", declared: new Set(), kept: [], rules: 0 });
const quiet = { positions: false, parseValue: true, parseCustomProperty: false, onParseError: () => undefined };

/** A `style` attribute's declarations. */
export function cleanStyleAttribute(value: string): CleanCss {
  const result = empty();
  result.css = cleanDeclarations(items(parse(value, { ...quiet, context: "declarationList" })), result);
  return result;
}

/** A `<style>` sheet: rules with a checked selector and at least one allowed declaration; at-rules left out. */
export function cleanStyleSheet(sheet: string): CleanCss {
  const result = empty();
  const rules: string[] = [];
  for (const rule of items(parse(sheet, { ...quiet, context: "stylesheet" }))) {
    if (rule.type !== "Rule" || rule.prelude?.type !== "SelectorList") continue;
    const declarations = cleanDeclarations(items(rule.block), result);
    const selectors = items(rule.prelude).map(cleanSelector);
    if (!declarations || selectors.length === 0 || selectors.some((s) => s === null)) continue;
    rules.push(`${selectors.join(",")}{${declarations}}`);
  }
  result.rules = rules.length;
  result.css = rules.join("\n");
  return result;
}
