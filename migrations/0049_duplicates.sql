-- Duplicates. Exact: files whose current bytes have the same SHA-256 (known at every commit, `variants.sha256`), found
-- through an index on the hash. Near: a 64-bit difference hash (dHash) of the preview picture, computed by the media
-- Worker where it makes the preview (images) or reads the browser's poster (video), stored on the version's main
-- variant as a signed 64-bit integer. Two pictures are near when at most 6 of the 64 bits differ; split into seven
-- bands (six of 9 bits, one of 10), two such hashes agree on at least one whole band (pigeonhole), so the candidates
-- are found through seven expression indexes and the distance is counted on the few rows they answer.
CREATE INDEX `variants_sha256_idx` ON `variants` (`sha256`) WHERE sha256 IS NOT NULL;
--> statement-breakpoint
ALTER TABLE `variants` ADD `phash` integer;
--> statement-breakpoint
CREATE INDEX `variants_phash_b0_idx` ON `variants` ((`phash` & 511)) WHERE phash IS NOT NULL;
--> statement-breakpoint
CREATE INDEX `variants_phash_b1_idx` ON `variants` (((`phash` >> 9) & 511)) WHERE phash IS NOT NULL;
--> statement-breakpoint
CREATE INDEX `variants_phash_b2_idx` ON `variants` (((`phash` >> 18) & 511)) WHERE phash IS NOT NULL;
--> statement-breakpoint
CREATE INDEX `variants_phash_b3_idx` ON `variants` (((`phash` >> 27) & 511)) WHERE phash IS NOT NULL;
--> statement-breakpoint
CREATE INDEX `variants_phash_b4_idx` ON `variants` (((`phash` >> 36) & 511)) WHERE phash IS NOT NULL;
--> statement-breakpoint
CREATE INDEX `variants_phash_b5_idx` ON `variants` (((`phash` >> 45) & 511)) WHERE phash IS NOT NULL;
--> statement-breakpoint
CREATE INDEX `variants_phash_b6_idx` ON `variants` (((`phash` >> 54) & 1023)) WHERE phash IS NOT NULL;
