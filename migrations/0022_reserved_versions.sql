-- Issue 29: create-version makes the next numbered version at once (SPEC's flow: the client then uploads into it).
-- The number is reserved on the pending variant; the version row itself is still written only when the bytes are
-- committed (commit-after-upload), which takes the reserved number. Null for variants made before, and for uploads
-- that commit in the same request (one-request, batch, editor saves), which take the next number when they commit.
ALTER TABLE `variants` ADD `reserved_version` integer;
