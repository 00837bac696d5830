-- 0011: where a lease holder's PID means that process: the boot of its kernel and its PID namespace
-- ("BOOT_ID/pid:[INODE]"). A run that finds the board held by a PID of its own space that no process has (the
-- holder was killed: SIGKILL, SIGPIPE, an OOM kill) takes the board at once instead of waiting for the
-- lease to expire; a holder of another space (another machine, container or boot), or of a row older
-- fleets wrote (''), is waited for as before.
ALTER TABLE leases ADD COLUMN pid_space TEXT NOT NULL DEFAULT '';
