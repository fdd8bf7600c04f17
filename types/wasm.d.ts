// WebAssembly modules imported by path (wrangler's CompiledWasm rule; the test pool applies the same rule).
declare module "*.wasm" {
  const module: WebAssembly.Module;
  export default module;
}
