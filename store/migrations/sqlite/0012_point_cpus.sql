-- 0012: where a point ran. cpus is the list its openssl was pinned to ("4-5", the kernel's cpulist format) and
-- cluster the name of those CPUs' cluster ("A72"; "all", "mixed"); both '' for a point not pinned, so that every
-- point stored before and every unpinned point after stays in the one series it was in. pinned_busy_pct and
-- other_busy_pct are how busy the pinned CPUs and the rest were over the point (0 when not pinned or unknown).
ALTER TABLE measurements ADD COLUMN cpus TEXT NOT NULL DEFAULT '';
ALTER TABLE measurements ADD COLUMN cluster TEXT NOT NULL DEFAULT '';
ALTER TABLE measurements ADD COLUMN pinned_busy_pct REAL NOT NULL DEFAULT 0;
ALTER TABLE measurements ADD COLUMN other_busy_pct REAL NOT NULL DEFAULT 0;
