import sharded from "./vitest.library-shards.config"; import base from "./vitest.config"; export default {...sharded, test:{...sharded.test, include: base.test!.include, exclude: base.test!.exclude}}
