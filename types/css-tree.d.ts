// The parts of css-tree (no bundled types) the SVG gate uses: its parser and its identifier decoder. Imported by
// subpath so the bundle leaves out the lexer's data (whose ESM entry needs createRequire).
declare module "css-tree/parser" {
  export interface CssList {
    toArray(): CssNode[];
  }
  export interface CssNode {
    type: string;
    name?: string;
    value?: string | CssNode;
    unit?: string;
    property?: string;
    important?: boolean | string;
    children?: CssList | null;
    prelude?: CssNode | null;
    block?: CssNode | null;
  }
  export interface ParseOptions {
    context?: "stylesheet" | "declarationList";
    positions?: boolean;
    parseValue?: boolean;
    parseCustomProperty?: boolean;
    onParseError?: (error: Error) => void;
  }
  const parse: (text: string, options?: ParseOptions) => CssNode;
  export default parse;
}

declare module "css-tree/utils" {
  export const ident: { decode(text: string): string };
}
