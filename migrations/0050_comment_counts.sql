-- Comment counts on tiles (decision record 035): each listed file carries how many comments it has and how many of
-- them are open. The total is counted on `comments_asset_idx` alone; the open ones need `resolved`, which that index
-- lacks (a row lookup per comment). This partial index holds only the open comments, with `resolved` in it so the
-- count never leaves the index (SQLite treats a partial index as covering only when the column is in it).
CREATE INDEX `comments_open_idx` ON `comments` (`asset_id`, `resolved`) WHERE `resolved` = 0;
