-- 0013: the energy of each point, where the board's power sensor (hwmon) or the lab's meter (power_command)
-- could say: joules over the point's wall time, mean watts, the readings integrated, and µJ per byte above the
-- board's idle power. NULL, never 0, when unknown, with energy_unknown saying why; '' and 0 for points stored
-- before energy was measured.
ALTER TABLE measurements ADD COLUMN energy_j REAL;
ALTER TABLE measurements ADD COLUMN power_w REAL;
ALTER TABLE measurements ADD COLUMN energy_samples INTEGER NOT NULL DEFAULT 0;
ALTER TABLE measurements ADD COLUMN energy_uj_per_byte REAL;
ALTER TABLE measurements ADD COLUMN energy_unknown TEXT NOT NULL DEFAULT '';
