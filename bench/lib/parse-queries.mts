// The MATCH expressions the product builds for the given texts (workers/services/search/query-parser.ts), one JSON
// array on stdout: how bench/search-shards.mjs asks the index exactly what a search asks. Run with tsx.
import { parseQuery } from "../../workers/services/search/query-parser";

process.stdout.write(JSON.stringify(process.argv.slice(2).map((text: string) => parseQuery(text).match)));
