-- 0008: the kernel's health over each board run's sweep: the kernel-log lines that matched a pattern (a bounded
-- excerpt, each with the point measured when it appeared), /proc/crypto's notes (a driver not self-tested, a
-- driver changed during the sweep) and a reboot under the sweep with both boot ids and the panic text the board
-- kept. protocol.KernelHealth as JSON; NULL for board runs stored before this migration and imported captures.
-- The points measured while a line appeared carry a "kernel-log: …" flag in measurements.flags.
ALTER TABLE board_runs ADD COLUMN kernel TEXT;
