#!/bin/sh
# fleet's nightly: measure the boards tagged nightly with the built-in nightly profile, then judge the run
# against each board's last 10 valid nightly runs and measure again whatever regressed. The exit code is regress's (README, "Exit codes"):
#   0 no regression (drops that were gone on re-measure are "transient")
#   1 regression, confirmed by re-measuring (or a series went missing)
#   2 configuration or input error: boards.toml, the database, a flag
#   3 one or more boards failed (the others were measured and judged)
#   4 no regression, but series were not judged: their points were invalid (a busy, throttled or hot board)
# Configuration comes from the environment: FLEET_DB, FLEET_INVENTORY; JUNIT names the JUnit file.
set -u
fleet run --tag nightly --profile nightly --label nightly --quiet-wait 60s
status=$?
# a failed board (3) still leaves the others to judge; anything else (2, 130) stops here
if [ "$status" -ne 0 ] && [ "$status" -ne 3 ]; then
	exit "$status"
fi
exec fleet regress --baseline nightly --run nightly --confirm --junit "${JUNIT:-regress.xml}"
