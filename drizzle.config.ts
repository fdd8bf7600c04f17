import { defineConfig } from "drizzle-kit";

export default defineConfig({
  dialect: "sqlite",
  schema: "./workers/db/schema/index.ts",
  out: "./migrations",
});
